#pragma once
#include <vector>

#include <Halide.h>

namespace nee {

// Gives the output buffer the same static, dense row-major layout as the inputs
// (kernels/ constrains those), so loop extents are compile-time constants.
void constrain_dense_output(Halide::Func& out, const std::vector<int64_t>& onnx_shape);

}  // namespace nee
