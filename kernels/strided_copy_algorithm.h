#pragma once
#include <vector>

#include <Halide.h>

#include "core/strided_copy_workload.h"

namespace nee {

// The strided_copy family as a Halide algorithm: what is computed, never how. In Halide
// order dims[0] is the output's innermost ONNX dim. `read` is the strided, permuted read
// in the output's coordinates and `out` stores it: a schedule that leaves `read` inlined
// copies element by element, and one that computes `read` per tile (in registers, or in
// GPU shared memory) reads the tile along the input's contiguous dim and writes it along
// the output's.
struct StridedCopyPipeline {
  Halide::ImageParam input;
  Halide::Func read;  // read(dims) = input at the affine index of output element dims
  Halide::Func out;   // out(dims) = read(dims)
  std::vector<Halide::Var> dims;
  std::vector<int64_t> extents;  // the output's, Halide order, like dims
  // The Halide output dim that reads the input's innermost dim: 0 when the copy keeps
  // rows contiguous on both sides (every Slice, attention's [0,2,1,3] Transpose),
  // another dim when it transposes the innermost dim (attention's key [0,2,3,1]).
  int inner_source_dim = 0;

  std::vector<Halide::Argument> arguments() const { return {input}; }
};

StridedCopyPipeline define_strided_copy(const Workload& w);

}  // namespace nee
