#include "kernels/dense_input.h"

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

std::vector<Halide::Expr> broadcast_coords(const std::vector<int64_t>& onnx_shape,
                                           const std::vector<Halide::Expr>& coords) {
  const size_t rank = onnx_shape.size();
  std::vector<Halide::Expr> out;
  for (size_t d = 0; d < rank; ++d) {
    out.push_back(onnx_shape[rank - 1 - d] == 1 ? Halide::Expr(0) : coords[d]);
  }
  return out;
}

}  // namespace nee
