#pragma once
#include <vector>

#include <Halide.h>

#include "core/conv_workload.h"

namespace nee {

// The conv2d family as a Halide algorithm: what is computed, never how. Shapes are
// static (taken from the workload) so the schedule sees constant extents and strides.
//
// Halide dimension order is the reverse of ONNX's NCHW: out(x, y, o, n), x contiguous.
struct Conv2dPipeline {
  Halide::ImageParam input, weights, bias, residual;  // bias/residual defined when the workload has them
  Halide::Func padded;  // padded(x, y, c, n): the input with zeros outside it
  Halide::Func acc;     // acc(x, y, o, n) += weights * padded over (kx, ky, ci) of o's group
  Halide::Func out;     // epilogue: bias, residual, activation
  Halide::Var x{"x"}, y{"y"}, o{"o"}, n{"n"};
  Halide::RDom r;       // r.x = kx, r.y = ky, r.z = ci (input channel within the group)
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0, kernel_h = 0, kernel_w = 0;

  std::vector<Halide::Argument> arguments() const;  // input, weights, [bias], [residual]
};

// clamp_reads: the channel and batch indices of the input, and the output channel of the
// weights, are clamped to their extents too (x and y always are). Values are unchanged;
// it lets Halide's autoschedulers compute the accumulator over a region larger than the
// output. NEE's own schedule spaces never need it.
Conv2dPipeline define_conv2d(const Workload& w, bool clamp_reads = false);

}  // namespace nee
