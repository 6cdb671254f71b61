#pragma once
#include <cstdint>
#include <vector>

#include <Halide.h>

namespace nee {

// Gives an input its static extents and dense row-major strides (Halide's dimension 0 is
// the last ONNX dimension), so loop bounds and strides are compile-time constants.
void constrain_dense_input(Halide::ImageParam& p, const std::vector<int64_t>& onnx_shape);

// Halide coordinates of a tensor of `rank` whose ONNX shape broadcasts (from the right)
// to a tensor indexed by `coords` (Halide order): size-1 dims read index 0.
std::vector<Halide::Expr> broadcast_coords(const std::vector<int64_t>& onnx_shape,
                                           const std::vector<Halide::Expr>& coords);

}  // namespace nee
