#include "kernels/static_input.h"

namespace nee {

void constrain_dense_input(Halide::ImageParam& p, const std::vector<int64_t>& onnx_shape) {
  const int rank = static_cast<int>(onnx_shape.size());
  int64_t stride = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t extent = onnx_shape[rank - 1 - d];
    p.dim(d).set_bounds(0, static_cast<int>(extent)).set_stride(static_cast<int>(stride));
    stride *= extent;
  }
}

}  // namespace nee
