#include "core/conv_weight_layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace nee {

bool groups_fill_weight_blocks(int64_t in_channels, int64_t out_channels, int64_t group) {
  if (group == 1) return true;
  return group > 1 && in_channels % group == 0 && out_channels % group == 0 &&
         (in_channels / group) % kConvWeightBlock == 0 && (out_channels / group) % kConvWeightBlock == 0;
}

std::vector<int64_t> blocked_weight_shape(const std::vector<int64_t>& oihw, int64_t block) {
  if (oihw.size() != 4 || block <= 0) throw Error(fmt::format("cannot block conv weights of rank {}", oihw.size()));
  return {(oihw[0] + block - 1) / block, oihw[1], oihw[2], oihw[3], block};
}

std::vector<int64_t> unblocked_weight_shape(const std::vector<int64_t>& blocked, int64_t out_channels,
                                            int64_t block) {
  if (blocked.size() != 5 || blocked[4] != block || out_channels <= 0 ||
      (out_channels + block - 1) / block != blocked[0]) {
    throw Error(fmt::format("blocked conv weights [{}] do not hold {} output channels in blocks of {}",
                            fmt::join(blocked, ","), out_channels, block));
  }
  return {out_channels, blocked[1], blocked[2], blocked[3]};
}

// One output channel's C*KH*KW taps are contiguous in OIHW and strided by `block` in the
// blocked layout.
void pack_blocked_weights(const float* oihw_data, const std::vector<int64_t>& oihw, int64_t block, float* out) {
  const std::vector<int64_t> shape = blocked_weight_shape(oihw, block);
  const int64_t taps = oihw[1] * oihw[2] * oihw[3];
  std::fill(out, out + shape[0] * taps * block, 0.0f);
  for (int64_t o = 0; o < oihw[0]; ++o) {
    float* dst = out + (o / block) * taps * block + o % block;
    const float* src = oihw_data + o * taps;
    for (int64_t t = 0; t < taps; ++t) dst[t * block] = src[t];
  }
}

void unpack_blocked_weights(const float* blocked_data, const std::vector<int64_t>& oihw, int64_t block, float* out) {
  const int64_t taps = oihw[1] * oihw[2] * oihw[3];
  for (int64_t o = 0; o < oihw[0]; ++o) {
    const float* src = blocked_data + (o / block) * taps * block + o % block;
    float* dst = out + o * taps;
    for (int64_t t = 0; t < taps; ++t) dst[t] = src[t * block];
  }
}

std::vector<int64_t> integer_conv_weight_shape(const std::vector<int64_t>& oihw) {
  if (oihw.size() != 4) throw Error(fmt::format("integer conv weights are rank 4, got rank {}", oihw.size()));
  const int64_t blocks = (oihw[0] + kConvWeightBlock - 1) / kConvWeightBlock;
  return {blocks, (oihw[1] + 3) / 4, oihw[2], oihw[3], kConvWeightBlock, 4};
}

bool integer_conv_sums_fit(const std::vector<int64_t>& oihw) {
  const std::vector<int64_t> packed = integer_conv_weight_shape(oihw);
  return packed[1] * 4 * packed[2] * packed[3] <= 65536;
}

std::vector<int64_t> integer_conv_scales_shape(int64_t out_channels) {
  return {(out_channels + kConvWeightBlock - 1) / kConvWeightBlock, 2, kConvWeightBlock};
}

namespace {

// The packed index of OIHW element (o, c, tap), tap = ky * KW + kx.
int64_t integer_conv_index(const std::vector<int64_t>& packed, int64_t o, int64_t c, int64_t tap) {
  const int64_t taps = packed[2] * packed[3];
  return (((o / kConvWeightBlock * packed[1] + c / 4) * taps + tap) * kConvWeightBlock + o % kConvWeightBlock) * 4 +
         c % 4;
}

}  // namespace

void pack_integer_conv_weights(const int8_t* oihw_data, const std::vector<int64_t>& oihw, const float* multipliers,
                               int8_t* out, float* scales) {
  const std::vector<int64_t> packed = integer_conv_weight_shape(oihw);
  const int64_t taps = oihw[2] * oihw[3];
  std::fill(out, out + packed[0] * packed[1] * taps * kConvWeightBlock * 4, int8_t{0});
  std::fill(scales, scales + packed[0] * 2 * kConvWeightBlock, 0.0f);
  for (int64_t o = 0; o < oihw[0]; ++o) {
    int64_t sum = 0;
    for (int64_t c = 0; c < oihw[1]; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        const int8_t v = oihw_data[(o * oihw[1] + c) * taps + t];
        out[integer_conv_index(packed, o, c, t)] = v;
        sum += v;
      }
    }
    float* block = scales + o / kConvWeightBlock * 2 * kConvWeightBlock;
    block[o % kConvWeightBlock] = multipliers[o];
    block[kConvWeightBlock + o % kConvWeightBlock] = static_cast<float>(sum);
  }
}

void unpack_integer_conv_weights(const int8_t* packed, const std::vector<int64_t>& oihw, int8_t* out) {
  const std::vector<int64_t> shape = integer_conv_weight_shape(oihw);
  const int64_t taps = oihw[2] * oihw[3];
  for (int64_t o = 0; o < oihw[0]; ++o) {
    for (int64_t c = 0; c < oihw[1]; ++c) {
      for (int64_t t = 0; t < taps; ++t) out[(o * oihw[1] + c) * taps + t] = packed[integer_conv_index(shape, o, c, t)];
    }
  }
}

}  // namespace nee
