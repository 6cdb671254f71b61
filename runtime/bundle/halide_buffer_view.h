#pragma once
#include <vector>

#include <HalideRuntime.h>

#include "runtime/tensor.h"

namespace nee {

// A halide_buffer_t over a dense row-major f32 or u8 tensor's host bytes (u8: a quantized
// matmul's weight panels): Halide's dimension 0
// is the last (contiguous) ONNX dimension. Not copyable: `buffer.dim` points into `dims`.
struct HalideBufferView {
  halide_buffer_t buffer{};
  std::vector<halide_dimension_t> dims;

  explicit HalideBufferView(const Tensor& t) {
    const int rank = static_cast<int>(t.shape().size());
    dims.resize(rank);
    int64_t stride = 1;
    for (int d = 0; d < rank; ++d) {
      const int64_t extent = t.shape()[rank - 1 - d];
      dims[d] = halide_dimension_t(0, static_cast<int32_t>(extent), static_cast<int32_t>(stride));
      stride *= extent;
    }
    buffer.host = static_cast<uint8_t*>(const_cast<void*>(t.data()));
    buffer.type = t.dtype() == DType::u8   ? halide_type_t(halide_type_uint, 8, 1)
                  : t.dtype() == DType::i8 ? halide_type_t(halide_type_int, 8, 1)
                                           : halide_type_t(halide_type_float, 32, 1);
    buffer.dimensions = rank;
    buffer.dim = dims.data();
  }
  HalideBufferView(const HalideBufferView&) = delete;
  HalideBufferView& operator=(const HalideBufferView&) = delete;
};

}  // namespace nee
