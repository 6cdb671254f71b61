#include "core/activation_layout.h"

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

bool can_block_activations(const std::vector<int64_t>& nchw) {
  return nchw.size() == 4 && nchw[1] > 0 && nchw[1] % kActivationBlock == 0;
}

std::vector<int64_t> blocked_activation_shape(const std::vector<int64_t>& nchw) {
  if (!can_block_activations(nchw)) {
    throw Error(fmt::format("cannot block activations [{}]: need NCHW with channels a multiple of {}",
                            fmt::join(nchw, ","), kActivationBlock));
  }
  return {nchw[0], nchw[1] / kActivationBlock, nchw[2], nchw[3], kActivationBlock};
}

std::vector<int64_t> unblocked_activation_shape(const std::vector<int64_t>& blocked) {
  if (blocked.size() != 5 || blocked[4] != kActivationBlock) {
    throw Error(fmt::format("[{}] is not a channel-blocked activation shape (N, C/{}, H, W, {})",
                            fmt::join(blocked, ","), kActivationBlock, kActivationBlock));
  }
  return {blocked[0], blocked[1] * kActivationBlock, blocked[2], blocked[3]};
}

// Each block gathers 16 planes: the loops walk the blocked side contiguously and read
// the 16 planes at one pixel each step.
void pack_blocked_activations(const float* nchw_data, const std::vector<int64_t>& nchw, float* out) {
  const std::vector<int64_t> shape = blocked_activation_shape(nchw);
  const int64_t blocks = shape[0] * shape[1], pixels = nchw[2] * nchw[3];
  for (int64_t b = 0; b < blocks; ++b) {
    const float* src = nchw_data + b * kActivationBlock * pixels;
    float* dst = out + b * pixels * kActivationBlock;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t c = 0; c < kActivationBlock; ++c) dst[p * kActivationBlock + c] = src[c * pixels + p];
    }
  }
}

void unpack_blocked_activations(const float* blocked_data, const std::vector<int64_t>& nchw, float* out) {
  const std::vector<int64_t> shape = blocked_activation_shape(nchw);
  const int64_t blocks = shape[0] * shape[1], pixels = nchw[2] * nchw[3];
  for (int64_t b = 0; b < blocks; ++b) {
    const float* src = blocked_data + b * pixels * kActivationBlock;
    float* dst = out + b * kActivationBlock * pixels;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t c = 0; c < kActivationBlock; ++c) dst[c * pixels + p] = src[p * kActivationBlock + c];
    }
  }
}

}  // namespace nee
