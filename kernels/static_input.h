#pragma once
#include <vector>

#include <Halide.h>

namespace nee {

// Makes every dimension of an input buffer static: min 0, constant extent, dense
// row-major strides (Halide's dimension 0 is ONNX's last). Constant strides let the
// schedule's vector loads and unrolling resolve at compile time.
void constrain_dense_input(Halide::ImageParam& p, const std::vector<int64_t>& onnx_shape);

}  // namespace nee
