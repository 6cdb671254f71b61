#pragma once
#include <cstdint>
#include <vector>

namespace nee {

// Channel-blocked activations, oneDNN's nChw16c: an NCHW tensor [N, C, H, W] stored as
// [N, C/16, H, W, 16], element (n, c, h, w) at [n, c / 16, h, w, c % 16]. A conv kernel
// that accumulates 16 output channels per vector writes this layout without a transpose,
// and one that reads it finds the 16 channels of an input pixel in one cache line where
// NCHW puts them in 16 planes. Only tensors whose C is a multiple of 16 are blocked, so
// the blocked shape holds the NCHW one exactly (no padding channels to keep track of).
constexpr int64_t kActivationBlock = 16;

// Whether an NCHW shape may be blocked: rank 4 with C a positive multiple of 16.
bool can_block_activations(const std::vector<int64_t>& nchw);
// [N, C, H, W] -> [N, C/16, H, W, 16]; throws nee::Error unless can_block_activations.
std::vector<int64_t> blocked_activation_shape(const std::vector<int64_t>& nchw);
// [N, C/16, H, W, 16] -> [N, C, H, W]; throws nee::Error unless rank 5 with 16 innermost.
std::vector<int64_t> unblocked_activation_shape(const std::vector<int64_t>& blocked);

// Copies an NCHW tensor of shape `nchw` into the blocked layout, and back.
void pack_blocked_activations(const float* nchw_data, const std::vector<int64_t>& nchw, float* out);
void unpack_blocked_activations(const float* blocked_data, const std::vector<int64_t>& nchw, float* out);

}  // namespace nee
