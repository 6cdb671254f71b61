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

}  // namespace nee
