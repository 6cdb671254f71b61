#include "schedules/conv2d_cpu_space.h"

#include <algorithm>

#include "core/error.h"
#include "schedules/conv2d_blocked_cpu_space.h"
#include "schedules/conv2d_gpu_space.h"
#include "schedules/conv2d_winograd_cpu_space.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

std::unique_ptr<ScheduleSpace> make_conv2d_cpu_space(const Workload& workload, const CpuVectorIsa& isa,
                                                     const CpuCaches& caches) {
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.winograd_tile != 0) return std::make_unique<Conv2dWinogradCpuSpace>(workload, isa, caches);
  if (attrs.weight_block != 0) return std::make_unique<Conv2dBlockedCpuSpace>(workload, isa);
  return std::make_unique<Conv2dCpuSpace>(workload, isa);
}

std::unique_ptr<ScheduleSpace> make_conv2d_gpu_space(const Workload& workload) {
  if (conv2d_attrs(workload).winograd_tile != 0 || conv2d_attrs(workload).a_bits != 0) {
    throw Error("Winograd and integer conv2d workloads have a CPU schedule space only");
  }
  return std::make_unique<Conv2dGpuSpace>(workload);
}

// The loop nest (innermost first), for out(x, y, o, n):
//   xi  vec lanes x x_vecs     register block columns, vectorized and unrolled
//   oi  oc_block channels      register block output channels, unrolled
//   xo                         column blocks across the row
//   yi  rows                   output rows of one row tile
//   then the row-tile loop yt and the channel-block loop oo (order by tile_order), then n.
// The accumulator (a register block) is computed per xo with the reduction over
// (kx, ky, ci) inside; the zero-padded input is inlined or computed per tile.
Conv2dCpuSpace::Conv2dCpuSpace(const Workload& workload, CpuVectorIsa isa) : workload_(workload), isa_(isa) {
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.input_block != 0 || attrs.output_block != 0) {
    throw Error("conv2d-cpu schedules NCHW activations only; channel-blocked ones take conv2d-blocked-cpu");
  }
  const Conv2dPipeline shape = define_conv2d(workload);
  out_w_ = shape.out_w;
  out_h_ = shape.out_h;
  out_c_ = shape.out_channels;
  kernel_w_ = shape.kernel_w;
  group_channels_ = shape.channels / shape.group;
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, out_w_), "vector width in floats, over output columns"},
      {"x_vecs", {1, 2, 3, 4}, "vectors per register-block row (columns = vec * x_vecs)"},
      {"oc_block", values_up_to({1, 2, 4, 6, 8}, out_c_), "output channels of the register block"},
      {"rows", values_up_to({1, 2, 4, 8, 16}, out_h_), "output rows of a row tile"},
      {"red_order", {0, 1}, "reduction order, innermost first: 0: kx, ky, ci; 1: ci, kx, ky"},
      {"unroll_kx", {0, 1}, "unroll the kx loop"},
      {"pad_at", {0, 1},
       "zero-padded input: 0: inlined (borders split off, their vector loads gathered); 1: computed per tile"},
      {"tile_order", {0, 1}, "0: channel blocks inside row tiles; 1: row tiles inside channel blocks"},
      {"parallel", {0, 1, 2}, "0: serial; 1: outer tile loop x batch; 2: both tile loops x batch"},
  };
}

ScheduleConfig Conv2dCpuSpace::default_config() const {
  ScheduleConfig c;
  // About half the vector registers hold accumulators: 4x2 blocks on AVX2, 8x2 on AVX-512.
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  c.knobs["x_vecs"] = std::clamp<int64_t>(out_w_ / c.knobs["vec"], 1, 2);
  c.knobs["oc_block"] = largest_value_up_to(knobs_, "oc_block", isa_.wide() ? 8 : 4);
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", 4);
  c.knobs["red_order"] = 0;
  c.knobs["unroll_kx"] = kernel_w_ <= 3 ? 1 : 0;
  c.knobs["pad_at"] = 1;
  c.knobs["tile_order"] = 0;
  c.knobs["parallel"] = 2;
  if (group_channels_ == 1) {
    // Depthwise: a zero-padded copy per row tile (4 rows) feeds plain vector loads;
    // inlined padding left borders of scalarized gathers, 2.8x slower on MobileNetV2's
    // 144x56x56 layer (1020 us against 360 with one-row copies, one thread). 8-column vectors and 4-channel
    // blocks, row tiles inside channel tiles, came from 24 random points on its 96-channel
    // stride-2 layer.
    c.knobs["vec"] = largest_value_up_to(knobs_, "vec", 8);
    c.knobs["x_vecs"] = 1;
    c.knobs["oc_block"] = largest_value_up_to(knobs_, "oc_block", 4);
    c.knobs["rows"] = largest_value_up_to(knobs_, "rows", 4);
    c.knobs["unroll_kx"] = 0;
    c.knobs["pad_at"] = 1;
    c.knobs["tile_order"] = 1;
    c.knobs["parallel"] = 1;
  }
  return c;
}

std::string Conv2dCpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t vec = c.at("vec"), x_vecs = c.at("x_vecs");
  if (vec * x_vecs > out_w_) return "register block columns exceed the output width";
  // The accumulators, one input vector per column vector and a broadcast weight must fit
  // in the vector registers (16 on AVX2, 32 on AVX-512), or the block spills.
  const int64_t regs = isa_.registers_per_vector(vec);
  if (c.at("oc_block") * x_vecs * regs + x_vecs * regs + 1 > isa_.registers) {
    return "register block does not fit in " + std::to_string(isa_.registers) + " vector registers";
  }
  if (c.at("unroll_kx") && c.at("red_order") == 0 && kernel_w_ > 7) return "kx unroll over a wide kernel";
  if (c.at("unroll_kx") && c.at("red_order") == 1 && group_channels_ > 1) {
    return "with ci innermost, only a one-channel group's loop is unrolled";
  }
  return "";
}

ScheduledKernel Conv2dCpuSpace::apply(const ScheduleConfig& c) const {
  Conv2dPipeline p = define_conv2d(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const int cols = vec * static_cast<int>(c.at("x_vecs"));
  const int ob = static_cast<int>(c.at("oc_block"));

  Var xo("xo"), xi("xi"), oo("oo"), oi("oi"), yt("yt"), yi("yi");
  p.out.split(p.x, xo, xi, cols).split(p.o, oo, oi, ob).split(p.y, yt, yi, static_cast<int>(c.at("rows")));
  Var inner_tile = c.at("tile_order") == 0 ? oo : yt;
  Var outer_tile = c.at("tile_order") == 0 ? yt : oo;
  p.out.reorder(xi, oi, xo, yi, inner_tile, outer_tile, p.n);
  p.out.vectorize(xi, vec).unroll(xi).unroll(oi);

  // The padded input is computed at the innermost tile loop, or at the fused parallel one.
  Var pad_level = inner_tile;
  if (c.at("parallel") == 1) {
    Var fused("tiles");
    p.out.fuse(outer_tile, p.n, fused).parallel(fused);
  } else if (c.at("parallel") == 2) {
    Var both("tiles"), fused("tiles_n");
    p.out.fuse(inner_tile, outer_tile, both).fuse(both, p.n, fused).parallel(fused);
    pad_level = fused;
  }

  p.acc.compute_at(p.out, xo).vectorize(p.x, vec).unroll(p.x).unroll(p.o);
  Stage update = p.acc.update();
  RVar kx = p.r.x, ky = p.r.y, ci = p.r.z;
  if (c.at("red_order") == 0) {
    update.reorder(p.x, p.o, kx, ky, ci);
    if (c.at("unroll_kx")) update.unroll(kx);
  } else {
    update.reorder(p.x, p.o, ci, kx, ky);
    if (c.at("unroll_kx")) update.unroll(ci);
  }
  update.vectorize(p.x, vec).unroll(p.x).unroll(p.o);

  if (c.at("pad_at") == 1) {
    // Rounding the copy's width up to whole vectors keeps its x loop free of the
    // shifted-in tail, so Halide can split off the borders; with the tail, every vector
    // of the copy was a scalarized gather (2.8 ms against 857 us for MobileNetV2's
    // 96-channel stride-2 depthwise layer).
    p.padded.compute_at(p.out, pad_level).vectorize(p.padded.args()[0], vec, TailStrategy::RoundUp);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
