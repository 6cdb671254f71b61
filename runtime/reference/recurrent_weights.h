#pragma once

#include <cstdint>

#include "runtime/tensor.h"

namespace nee {

// ONNX's RNN, GRU and LSTM weights in the forms their lowering (passes.h:
// lower_recurrent) computes with: the input projection of every step as one matrix
// product, x W^T + bias, and the recurrent product of each step as rows of R^T, so that a
// unit's gates are contiguous columns. `gates` is 1 (RNN), 3 (GRU) or 4 (LSTM).

// W [dirs, gates * H, I] -> [I, dirs * gates * H]: column d * gates * H + j is W[d, j, :].
Tensor recurrent_input_weights(const Tensor& w);

// The projection's bias [dirs * gates * H] from B [dirs, 2 * gates * H] (Wb then Rb; null:
// zeros): Wb + Rb, except a GRU's candidate gate, whose Rb stays inside the reset
// (recurrent_candidate_bias).
Tensor recurrent_input_bias(const Tensor* b, int64_t dirs, int64_t gates, int64_t hidden, bool gru);

// Units per block of the packed recurrent weights: one AVX-512 vector of f32.
constexpr int64_t kRecurrentUnitBlock = 16;

// R [dirs, gates * H, H] -> [dirs, ceil(H / 16), H, gates, 16]: for each block of 16 units,
// the weights of each input unit c to the block's gates, so that a block's product
// streams one contiguous run (a thread's blocks one run), zeros past H.
Tensor recurrent_weights_packed(const Tensor& r);

// A GRU's Rb of its candidate gate [dirs, H] from B (null: zeros).
Tensor recurrent_candidate_bias(const Tensor* b, int64_t dirs, int64_t hidden);

}  // namespace nee
