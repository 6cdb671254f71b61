#pragma once
#include <vector>

#include <Halide.h>

#include "core/elementwise_workload.h"

namespace nee {

// The elementwise family as a Halide algorithm: the program's instructions become one
// expression per output element. Shapes are static (taken from the workload).
//
// Halide dimension order is the reverse of ONNX's: out(vars[0], vars[1], ...) with
// vars[0] the innermost (contiguous) ONNX dimension.
struct ElementwisePipeline {
  std::vector<Halide::ImageParam> inputs;  // one per input slot, in call order
  Halide::Func out;
  std::vector<Halide::Var> vars;
  std::vector<int64_t> extents;  // same order as vars

  std::vector<Halide::Argument> arguments() const;
};

ElementwisePipeline define_elementwise(const Workload& w);

}  // namespace nee
