#pragma once
#include <vector>

#include <Halide.h>

#include "core/layernorm_workload.h"

namespace nee {

// The layernorm family as a Halide algorithm: what is computed, never how. The tensor
// keeps its rank; in Halide order dims[0, row_dims) are the normalized (row) dims and the
// rest index rows. The statistics are Funcs over the row-index dims.
struct LayernormPipeline {
  Halide::ImageParam input, scale, bias;  // bias defined when the workload has one
  Halide::Func sum_x;     // sum of the row; undefined for RMSNorm
  Halide::Func centered;  // input - mean (RMSNorm: input)
  Halide::Func sum_sq;    // sum of centered^2 over the row
  Halide::Func inv_std;   // 1 / sqrt(variance + epsilon)
  Halide::Func out;       // centered * inv_std * scale + bias
  std::vector<Halide::Var> dims;
  int row_dims = 0;
  Halide::RDom r;  // over the row dims; r.x is the innermost
  std::vector<int64_t> extents;  // Halide order, like dims

  std::vector<Halide::Argument> arguments() const;  // input, scale, [bias]
};

LayernormPipeline define_layernorm(const Workload& w);

}  // namespace nee
