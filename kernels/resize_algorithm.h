#pragma once
#include <vector>

#include <Halide.h>

#include "core/resize_workload.h"

namespace nee {

// The resize family as a Halide algorithm: what is computed, never how. In Halide order
// dims[w_dim] is W (the output's columns), dims[w_dim + 1] H (its rows), the rest the
// outer dims; w_dim is 0, or 1 when dims[0] holds a blocked tensor's channel lanes.
// The taps of each output column and row are tables over that one dim, in the ONNX
// reference's double arithmetic (core/resize_coordinates.h): `col_lo`/`col_hi` (Int(32),
// the neighbours it reads, clamped to the input) and `col_weight` (Float(32), the
// weight of col_hi; nearest: col_lo alone, the neighbour it copies), and the same for
// rows. Linear interpolation weighs along W first, in `rows` (an input row interpolated
// at every output column, per input row), then along H in `out`; a schedule inlines
// `rows` (four reads per output) or computes it once per input row.
struct ResizePipeline {
  Halide::ImageParam input;
  Halide::Func col_lo, col_hi, col_weight;
  Halide::Func row_lo, row_hi, row_weight;
  Halide::Func rows;  // linear only
  Halide::Func out;
  std::vector<Halide::Var> dims;
  std::vector<int64_t> extents;  // the output's, Halide order
  int w_dim = 0;
  bool linear = false;

  const Halide::Var& col() const { return dims[w_dim]; }
  const Halide::Var& row() const { return dims[w_dim + 1]; }

  std::vector<Halide::Argument> arguments() const { return {input}; }
  // The tables of both dims, for a schedule that computes them once per call.
  std::vector<Halide::Func> tables() const;
};

ResizePipeline define_resize(const Workload& w);

}  // namespace nee
