#pragma once
#include <vector>

#include <Halide.h>

#include "core/softmax_workload.h"

namespace nee {

// The softmax family as a Halide algorithm: what is computed, never how. The tensor keeps
// its rank (kernels take the graph's tensors as they are); in Halide order dims[0] is the
// innermost ONNX dim and dims[axis_dim] the softmax axis. The statistics are Funcs over
// every dim but the axis.
struct SoftmaxPipeline {
  Halide::ImageParam input;
  Halide::Func row_max;  // max over the axis
  Halide::Func exps;     // exp(input - row_max)
  Halide::Func row_sum;  // sum of exps over the axis
  Halide::Func out;      // exps / row_sum
  std::vector<Halide::Var> dims;
  int axis_dim = 0;
  Halide::RDom r;  // over the axis
  std::vector<int64_t> extents;  // Halide order, like dims

  std::vector<Halide::Argument> arguments() const { return {input}; }
};

SoftmaxPipeline define_softmax(const Workload& w);

}  // namespace nee
