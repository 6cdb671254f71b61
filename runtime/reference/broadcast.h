#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nee {

// Element strides of a tensor of `shape` read as if broadcast to `out_shape` (ONNX
// multidirectional broadcasting): aligned right, 0 along broadcast dims.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& out_shape);

// Calls f(out_index, a_index, b_index) for every element of out_shape, in row-major order.
template <typename F>
void for_each_broadcast(const std::vector<int64_t>& out_shape, const std::vector<int64_t>& a_shape,
                        const std::vector<int64_t>& b_shape, F f) {
  const std::vector<int64_t> sa = broadcast_strides(a_shape, out_shape);
  const std::vector<int64_t> sb = broadcast_strides(b_shape, out_shape);
  const size_t rank = out_shape.size();
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    f(0, 0, 0);
    return;
  }
  const int64_t inner = out_shape[rank - 1], ia_step = sa[rank - 1], ib_step = sb[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t a = 0, b = 0;
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t j = 0; j < inner; ++j) f(o + j, a + j * ia_step, b + j * ib_step);
    // Advance the odometer over the outer dims.
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out_shape[d]) {
        a += sa[d];
        b += sb[d];
        break;
      }
      a -= sa[d] * (out_shape[d] - 1);
      b -= sb[d] * (out_shape[d] - 1);
      index[d] = 0;
    }
  }
}

// Calls f(out_index, input_indices) for every element of out_shape, in row-major order,
// where input_indices[k] is the element of an input of shapes[k] broadcast to it.
template <typename F>
void for_each_broadcast_n(const std::vector<int64_t>& out_shape, const std::vector<std::vector<int64_t>>& shapes,
                          F f) {
  const size_t rank = out_shape.size(), inputs = shapes.size();
  std::vector<std::vector<int64_t>> strides;
  for (const auto& shape : shapes) strides.push_back(broadcast_strides(shape, out_shape));
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  std::vector<int64_t> index(rank, 0), offsets(inputs, 0);
  for (int64_t o = 0; o < total; ++o) {
    f(o, static_cast<const std::vector<int64_t>&>(offsets));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) {
        for (size_t k = 0; k < inputs; ++k) offsets[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < inputs; ++k) offsets[k] -= strides[k][d] * (out_shape[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace nee
