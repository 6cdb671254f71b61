#pragma once
#include <vector>

#include <Halide.h>

#include "core/pool2d_workload.h"

namespace nee {

// The pool2d family as a Halide algorithm: what is computed, never how. Shapes are static
// (taken from the workload). Halide dimension order is the reverse of NCHW: out(x, y, c, n);
// a channel-blocked pool has the 16 channels of a block innermost: out(lane, x, y, c, n),
// c counting blocks.
struct Pool2dPipeline {
  Halide::ImageParam input;
  Halide::Func padded;  // padded(x, y, c, n): the input, -inf (max) or 0 (average) outside it
  Halide::Func pooled;  // pooled(x, y, c, n): maximum or sum over the window
  Halide::Func out;     // the maximum, or the sum over the divisor
  Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"}, lane{"lane"};
  Halide::RDom r;  // r.x = kx, r.y = ky
  bool average = false;
  bool blocked = false;
  int64_t out_w = 0, out_h = 0, planes = 0, kernel_w = 0, kernel_h = 0;

  std::vector<Halide::Argument> arguments() const { return {input}; }
  // The args of every Func at column `at_x` and row `at_y`: (lane, x, y, c, n) when blocked.
  std::vector<Halide::Expr> at(const Halide::Expr& at_x, const Halide::Expr& at_y) const;
};

Pool2dPipeline define_pool2d(const Workload& w);

}  // namespace nee
