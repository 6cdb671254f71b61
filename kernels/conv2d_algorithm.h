#pragma once
#include <vector>

#include <Halide.h>

#include "core/conv2d_workload.h"

namespace nee {

// How the sum over (kx, ky, ci) is laid out; the schedule space picks it.
enum class ConvAccumulator {
  // acc(x, y, o, n): one Func element per output element, for schedules that vectorize
  // over x (or map pixels to GPU threads).
  per_channel,
  // acc_blocked(oi, x, y, ob, n) for output channel ob * 16 + oi: the 16 channels of a
  // weight block are the innermost dimension, for schedules that vectorize over output
  // channels with broadcast input pixels. Needs channel-blocked weights.
  channel_blocked,
  // Winograd F(m x m, 3x3) over transformed weights (the workload's winograd_tile):
  // wino_input, wino_sum and wino_product below. Needs a channel-blocked output.
  winograd,
};

// The conv2d family as a Halide algorithm: what is computed, never how. Shapes are
// static (taken from the workload) so the schedule sees constant extents and strides.
//
// Halide dimension order is the reverse of ONNX's NCHW: out(x, y, o, n), x contiguous.
// With the workload's output_block set, out (and residual) are channel-blocked instead:
// out(oi, x, y, ob, n) for output channel ob * 16 + oi, read from acc_blocked without a
// transpose. With input_block set, input is input(ci, x, y, cb, n); `padded` hides it.
struct Conv2dPipeline {
  Halide::ImageParam input, weights, bias, residual;  // bias/residual defined when the workload has them
  // An integer conv's (Conv2dAttrs::a_bits) multipliers and weight sums, X's scale and zero
  // point, and X quantized: quantized(c, x, y, n), channels innermost (four of them a 32-bit
  // lane), u8 where the sums are of bytes, else q - a_zero in f32. Its sums read it through a
  // boundary condition of a_zero (0 in f32); `padded` stays undefined, and `weight` is
  // weight(oi, ci % 4, kx, ky, ci / 4, ob) in f32 where the sums are not of bytes.
  Halide::ImageParam w_scales, a_scale, a_zero;
  Halide::Func quantized;
  Halide::Func padded;  // padded(x, y, c, n): the input with zeros outside it
  Halide::Func weight;  // weight(kx, ky, ci, o) in either layout of W (inlined)
  Halide::Func acc;          // per_channel: acc(x, y, o, n) += weight * padded over (kx, ky, ci) of o's group
  Halide::Func acc_blocked;  // channel_blocked: acc_blocked(oi, x, y, ob, n), the same sums
  // Winograd (core/winograd_weights.h), for output tile (tx, ty) and transformed element
  // (xi, nu):
  //   wino_input(c, tx, ty, xi, nu, n): B^T d B of the tile's alpha x alpha input block
  //   wino_sum(oi, tx, ty, xi, nu, ob, n): sum over input channels rc of wino_input times
  //     the transformed weights, for output channel ob * 16 + oi
  //   wino_product(...): the same values as a stage of their own, which a schedule stores
  //     while computing wino_sum in registers
  // and acc_blocked's place is taken by A^T M A inside out.
  Halide::Func wino_input, wino_sum, wino_product;
  Halide::Var tx{"tx"}, ty{"ty"}, xi{"xi"}, nu{"nu"}, c{"c"};
  Halide::RDom rc;  // input channels of the Winograd products
  int64_t winograd_tile = 0;
  Halide::Func out;     // epilogue: bias, residual, activation
  Halide::Var x{"x"}, y{"y"}, o{"o"}, n{"n"};
  Halide::Var oi{"oi"}, ob{"ob"};  // acc_blocked's channel-in-block and block
  Halide::RDom r;       // r.x = kx, r.y = ky, r.z = ci (input channel within the group)
                        // integer: r.z = ci / 4, r.w = ci % 4
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1, weight_block = 0;
  int64_t input_block = 0, output_block = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0, kernel_h = 0, kernel_w = 0;

  // input, weights, [w_scales, a_scale, a_zero], [bias], [residual]
  std::vector<Halide::Argument> arguments() const;
  // group = C = O > 1: one window per channel, no reduction over channels.
  bool is_depthwise() const { return group > 1 && group == channels && group == out_channels; }
};

struct Conv2dOptions {
  ConvAccumulator accumulator = ConvAccumulator::per_channel;
  // The channel and batch indices of the input, and the output channel of the weights,
  // are clamped to their extents too (x and y always are). Values are unchanged; it lets
  // Halide's autoschedulers compute the accumulator over a region larger than the
  // output. NEE's own schedule spaces never need it.
  bool clamp_reads = false;
  // An integer conv sums bytes in i32 (VNNI's dot products, CpuVectorIsa::byte_dot_products);
  // else q - a_zero times the weights in f32, exact while a sum stays below 2^24.
  bool byte_dot_products = true;
};

// Throws nee::Error for a channel_blocked accumulator over OIHW weights, for a per_channel
// one with a channel-blocked output, and for an integer conv without a channel_blocked one.
Conv2dPipeline define_conv2d(const Workload& w, const Conv2dOptions& options = {});

}  // namespace nee
