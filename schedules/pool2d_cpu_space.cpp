#include "schedules/pool2d_cpu_space.h"

#include "core/activation_layout.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

std::string check_pool2d_unroll(int64_t unroll_window, int64_t kernel_w, int64_t kernel_h) {
  if (unroll_window >= 1 && kernel_w > 8) return "kx unroll over a window wider than 8";
  if (unroll_window == 2 && kernel_w * kernel_h > 16) return "kx, ky unroll over a window of more than 16 taps";
  return "";
}

// The loop nest (innermost first), for out(x, y, c, n):
//   xi  vec lanes                  output columns, vectorized; the window's max or sum
//                                  is computed per xi vector with the window loops inside
//   xo                             column blocks across the row
//   yi  rows                       output rows of one row tile
//   yt, then the planes (c, n fused); parallel over planes or over (row tiles, planes),
//   `grain` of them per task.
// A channel-blocked pool, out(lane, x, y, c, n), vectorizes the block's 16 channels
// instead (one vector load per tap, where NCHW columns of a stride-2 window are a strided
// gather) and unrolls px columns around them: lane, xi (px), then the loops above.
// A window wider than the output's vector (a global pool: one output column) may split
// its rows into window_lanes vector lanes instead (rfactor), summed or maxed at the end.
// The padded input is inlined (a select per load) or computed per row tile.
Pool2dCpuSpace::Pool2dCpuSpace(const Workload& workload) : workload_(workload) {
  const Pool2dPipeline shape = define_pool2d(workload);
  blocked_ = shape.blocked;
  kernel_w_ = shape.kernel_w;
  kernel_h_ = shape.kernel_h;
  planes_ = blocked_ ? shape.planes / kActivationBlock : shape.planes;
  out_h_ = shape.out_h;
  out_w_ = shape.out_w;
  if (blocked_) {
    knobs_ = {{"px", values_up_to({1, 2, 4, 8}, shape.out_w), "output columns per block of 16 channels, unrolled"}};
  } else {
    knobs_ = {{"vec", values_up_to({1, 4, 8, 16}, shape.out_w), "vector width in floats, over output columns"}};
  }
  const std::vector<Knob> loops = {
      {"rows", values_up_to({1, 2, 4, 8}, shape.out_h), "output rows of a row tile"},
      {"unroll_window", {0, 1, 2}, "0: window loops as loops; 1: kx unrolled; 2: kx and ky unrolled"},
      {"pad_at", {0, 1}, "padded input: 0: inlined (a select per load); 1: computed per row tile"},
      {"parallel", {0, 1, 2}, "0: serial; 1: over planes (c x n); 2: over row tiles x planes"},
      {"grain", {1, 4, 16, 64}, "iterations of the parallel loop per task", 1},
      {"window_lanes", blocked_ ? std::vector<int64_t>{0} : values_up_to({0, 4, 8, 16}, kernel_w_),
       "0: the window reduced tap by tap; else its rows split into this many vector lanes (one output column)",
       0},
  };
  knobs_.insert(knobs_.end(), loops.begin(), loops.end());
}

ScheduleConfig Pool2dCpuSpace::default_config() const {
  ScheduleConfig c;
  if (blocked_) {
    // 4 vectors of 16 channels: columns enough to overlap the loads of neighbouring windows.
    c.knobs["px"] = fitting_tile(knobs_[0].values, out_w_, 4);
  } else {
    c.knobs["vec"] = largest_value_up_to(knobs_, "vec", 8);
  }
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", 4);
  c.knobs["unroll_window"] = check_pool2d_unroll(2, kernel_w_, kernel_h_).empty()   ? 2
                             : check_pool2d_unroll(1, kernel_w_, kernel_h_).empty() ? 1
                                                                                    : 0;
  c.knobs["pad_at"] = 0;
  c.knobs["parallel"] = 2;
  // A global pool's task is one plane's few taps. ResNet-50's average pool over 2048
  // planes of 7x7 (cold, 2 threads, one measurement each in a tuning run) took 99 us
  // with one plane per task, 86 us with 64 (32 tasks; 67 us for the best point tuned,
  // 4 per task): so tasks of several planes, still 32 tasks or more.
  const int64_t iterations = planes_ * ((out_h_ + c.knobs["rows"] - 1) / c.knobs["rows"]);
  c.knobs["grain"] = largest_value_up_to(knobs_, "grain", std::max<int64_t>(1, iterations / 32));
  // A global pool reduced tap by tap is scalar: EfficientNet-B0's 17 squeeze-and-excite
  // pools took 0.87 of its 7.9 ms per run at 2.4 GFLOP/s.
  c.knobs["window_lanes"] = !blocked_ && out_w_ == 1 && kernel_w_ >= 8 ? 8 : 0;
  if (c.knobs["window_lanes"] > 0) c.knobs["unroll_window"] = 0;
  return c;
}

std::string Pool2dCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("window_lanes") > 0 && (c.at("vec") > 1 || c.at("unroll_window") > 0)) {
    return "window lanes vectorize the window: no column vector, no unrolled window";
  }
  return check_pool2d_unroll(c.at("unroll_window"), kernel_w_, kernel_h_);
}

ScheduledKernel Pool2dCpuSpace::apply(const ScheduleConfig& c) const {
  Pool2dPipeline p = define_pool2d(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  // NCHW: vec columns per vector; blocked: px columns of one 16-channel vector each.
  const int columns = static_cast<int>(blocked_ ? c.at("px") : c.at("vec"));
  const int vec = blocked_ ? 1 : columns;
  Var xo("xo"), xi("xi"), yt("yt"), yi("yi"), plane("plane");
  p.out.split(p.x, xo, xi, columns).split(p.y, yt, yi, static_cast<int>(c.at("rows")));
  if (blocked_) {
    p.out.reorder(p.lane, xi, xo, yi, yt, p.c, p.n).vectorize(p.lane).unroll(xi);
  } else {
    p.out.reorder(xi, xo, yi, yt, p.c, p.n);
    if (vec > 1) p.out.vectorize(xi);
  }
  p.out.fuse(p.c, p.n, plane);
  Var tile_level = yt;
  const int grain = static_cast<int>(c.at("grain"));
  if (c.at("parallel") == 1) {
    p.out.parallel(plane, grain, TailStrategy::GuardWithIf);
  } else if (c.at("parallel") == 2) {
    Var tiles("tiles");
    p.out.fuse(yt, plane, tiles).parallel(tiles, grain, TailStrategy::GuardWithIf);
    tile_level = tiles;
  }

  p.pooled.compute_at(p.out, xo);
  Stage update = p.pooled.update();
  if (const int window_lanes = static_cast<int>(c.at("window_lanes")); window_lanes > 0) {
    RVar rxo("rxo"), rxi("rxi");
    Var lane("window_lane");
    Func partial = update.split(p.r.x, rxo, rxi, window_lanes, TailStrategy::GuardWithIf).rfactor(rxi, lane);
    partial.compute_at(p.out, xo).vectorize(lane);
    partial.update().reorder(lane, rxo, p.r.y).vectorize(lane);
  } else if (blocked_) {
    update.reorder(p.lane, p.x, p.r.x, p.r.y).vectorize(p.lane).unroll(p.x);
    p.pooled.vectorize(p.lane).unroll(p.x);
  } else {
    update.reorder(p.x, p.r.x, p.r.y);
  }
  if (vec > 1) {
    p.pooled.vectorize(p.x, vec);
    update.vectorize(p.x, vec);
  }
  if (c.at("unroll_window") >= 1) update.unroll(p.r.x);
  if (c.at("unroll_window") == 2) update.unroll(p.r.y);
  if (c.at("pad_at") == 1) {
    p.padded.compute_at(p.out, tile_level);
    if (blocked_) p.padded.vectorize(p.lane);
    if (vec > 1) p.padded.vectorize(p.x, vec);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
