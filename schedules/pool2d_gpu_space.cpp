#include "schedules/pool2d_gpu_space.h"

#include "core/error.h"
#include "schedules/gpu_block.h"
#include "schedules/pool2d_cpu_space.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

Pool2dGpuSpace::Pool2dGpuSpace(const Workload& workload) : workload_(workload) {
  const Pool2dPipeline shape = define_pool2d(workload);
  // Channel-blocked activations exist only between CPU kernels (the blocked conv space).
  if (shape.blocked) throw Error("pool2d-gpu schedules NCHW pools, not the channel-blocked " + workload.key());
  kernel_w_ = shape.kernel_w;
  kernel_h_ = shape.kernel_h;
  knobs_ = {
      {"threads_x", values_up_to({1, 4, 8, 16, 32}, shape.out_w), "threads of a block along x"},
      {"threads_y", values_up_to({1, 2, 4, 8, 16}, shape.out_h), "threads of a block along y"},
      {"threads_c", values_up_to({1, 4, 16, 64}, workload.inputs[0].shape[1]), "threads of a block along channels"},
      {"unroll_window", {0, 1, 2}, "0: window loops as loops; 1: kx unrolled; 2: kx and ky unrolled"},
      {"stage", {0, 1}, "1: the block first loads the input its windows cover into shared memory", 0},
  };
  attrs_ = pool2d_attrs(workload);
  // Windows overlap (each input read more than once) where a stride is below the
  // dilated window along a dim with more than one output.
  const int64_t span_w = (kernel_w_ - 1) * attrs_.dilations[1] + 1, span_h = (kernel_h_ - 1) * attrs_.dilations[0] + 1;
  overlapping_ = (attrs_.strides[1] < span_w && shape.out_w > 1) || (attrs_.strides[0] < span_h && shape.out_h > 1);
}

ScheduleConfig Pool2dGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads_x"] = largest_value_up_to(knobs_, "threads_x", 16);
  c.knobs["threads_y"] = largest_value_up_to(knobs_, "threads_y", 8);
  // A global pool has one output per plane: its threads go to channels instead.
  c.knobs["threads_c"] = largest_value_up_to(knobs_, "threads_c", 128 / (c.knobs["threads_x"] * c.knobs["threads_y"]));
  c.knobs["unroll_window"] = check_pool2d_unroll(2, kernel_w_, kernel_h_).empty()   ? 2
                             : check_pool2d_unroll(1, kernel_w_, kernel_h_).empty() ? 1
                                                                                    : 0;
  // Overlapping windows read each input element several times (2.25 on average for
  // 3x3 at stride 2): staged, a block reads it from global memory once.
  c.knobs["stage"] = 0;
  ScheduleConfig staged = c;
  staged.knobs["stage"] = 1;
  return check(staged).empty() ? staged : c;
}

std::string Pool2dGpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("threads_x") * c.at("threads_y") * c.at("threads_c") > kGpuMaxThreadsPerBlock) {
    return "more than 1024 threads per block";
  }
  if (!c.at("stage")) return check_pool2d_unroll(c.at("unroll_window"), kernel_w_, kernel_h_);
  if (!overlapping_) return "stage needs overlapping windows: without them no input is read twice";
  const int64_t window_x = (c.at("threads_x") - 1) * attrs_.strides[1] + (kernel_w_ - 1) * attrs_.dilations[1] + 1;
  const int64_t window_y = (c.at("threads_y") - 1) * attrs_.strides[0] + (kernel_h_ - 1) * attrs_.dilations[0] + 1;
  if (4 * window_x * window_y * c.at("threads_c") > kGpuSharedBytesPerBlock) {
    return "the staged input exceeds 48 KiB of shared memory";
  }
  return check_pool2d_unroll(c.at("unroll_window"), kernel_w_, kernel_h_);
}

ScheduledKernel Pool2dGpuSpace::apply(const ScheduleConfig& c) const {
  Pool2dPipeline p = define_pool2d(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  Var xb("xb"), xt("xt"), yb("yb"), yt("yt"), cb("cb"), ct("ct"), blocks("cb_n");
  p.out.split(p.x, xb, xt, static_cast<int>(c.at("threads_x")))
      .split(p.y, yb, yt, static_cast<int>(c.at("threads_y")))
      .split(p.c, cb, ct, static_cast<int>(c.at("threads_c")))
      .reorder(xt, yt, ct, xb, yb, cb, p.n)
      .fuse(cb, p.n, blocks)
      .gpu_blocks(xb, yb, blocks)
      .gpu_threads(xt, yt, ct);
  if (c.at("stage")) {
    load_into_shared(p.padded, LoopLevel(p.out, xb), static_cast<int>(c.at("threads_x")),
                     static_cast<int>(c.at("threads_y")), static_cast<int>(c.at("threads_c")));
  }
  p.pooled.compute_at(p.out, xt);
  Stage update = p.pooled.update();
  if (c.at("unroll_window") >= 1) update.unroll(p.r.x);
  if (c.at("unroll_window") == 2) update.unroll(p.r.y);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
