#include "schedules/elementwise_cpu_space.h"

#include <algorithm>

#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest (innermost first), for out(d0, d1, ...):
//   the innermost fuse_dims dims fused into one dim f (a flat run when they are dense),
//   f split into blocks of vec x unroll elements: vec lanes vectorized, unroll unrolled;
//   the block loop fused with the remaining outer dims into one loop, split into tasks
//   of `grain` iterations that run in parallel when parallel = 1.
// Tails are handled by shifting the last block inwards (recomputing a few elements),
// so every domain value is cut to the extent it splits.
ElementwiseCpuSpace::ElementwiseCpuSpace(const Workload& workload) : workload_(workload) {
  extents_ = define_elementwise(workload).extents;
  const int64_t rank = static_cast<int64_t>(extents_.size());
  const int64_t total = workload.output.elements();
  std::vector<int64_t> fuse_values;
  for (int64_t d = 1; d <= std::min<int64_t>(rank, 3); ++d) fuse_values.push_back(d);
  knobs_ = {
      {"fuse_dims", fuse_values, "innermost output dims fused into the vectorized dim"},
      {"vec", values_up_to({1, 4, 8, 16}, total), "vector width in floats"},
      {"unroll", {1, 2, 4}, "vectors per block, unrolled"},
      {"parallel", {0, 1}, "run the outer loop's tasks on all cores"},
      {"grain", values_up_to({1, 4, 16, 64, 256, 1024}, total), "outer-loop iterations per parallel task"},
  };
}

int64_t ElementwiseCpuSpace::fused_extent(int64_t dims) const {
  int64_t e = 1;
  for (int64_t d = 0; d < dims; ++d) e *= extents_[d];
  return e;
}

int64_t ElementwiseCpuSpace::outer_iterations(int64_t dims, int64_t block) const {
  int64_t n = ceil_div(fused_extent(dims), block);
  for (size_t d = static_cast<size_t>(dims); d < extents_.size(); ++d) n *= extents_[d];
  return n;
}

ScheduleConfig ElementwiseCpuSpace::default_config() const {
  ScheduleConfig c;
  // Fuse inner dims until a run of 256 elements: a short innermost dim (ResNet's 7x7
  // maps) otherwise leaves most of each vector's lanes idle.
  int64_t dims = 1;
  const int64_t max_dims = knobs_[0].values.back();
  while (dims < max_dims && fused_extent(dims) < 256) ++dims;
  c.knobs["fuse_dims"] = dims;
  const int64_t inner = fused_extent(dims);
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", std::min<int64_t>(8, inner));
  c.knobs["unroll"] = inner >= 2 * c.knobs["vec"] ? 2 : 1;
  const int64_t block = c.knobs["vec"] * c.knobs["unroll"];
  // Below 16K elements a parallel launch costs more than the work it shares.
  const bool parallel = workload_.output.elements() >= 16384;
  c.knobs["parallel"] = parallel ? 1 : 0;
  // Tasks of about 8K elements.
  c.knobs["grain"] = parallel ? largest_value_up_to(knobs_, "grain",
                                              std::min<int64_t>(8192 / block, outer_iterations(dims, block)))
                              : 1;
  return c;
}

std::string ElementwiseCpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t dims = c.at("fuse_dims");
  const int64_t block = c.at("vec") * c.at("unroll");
  if (block > fused_extent(dims)) return "a block of vec x unroll exceeds the fused inner extent";
  if (c.at("parallel") == 0 && c.at("grain") != 1) return "grain is 1 when the outer loop is serial";
  if (c.at("grain") > outer_iterations(dims, block)) return "grain exceeds the outer loop's iterations";
  return "";
}

ScheduledKernel ElementwiseCpuSpace::apply(const ScheduleConfig& c) const {
  ElementwisePipeline p = define_elementwise(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int dims = static_cast<int>(c.at("fuse_dims"));
  const int vec = static_cast<int>(c.at("vec"));
  const int block = vec * static_cast<int>(c.at("unroll"));

  Var inner = p.vars[0];
  for (int d = 1; d < dims; ++d) {
    Var fused("f" + std::to_string(d));
    p.out.fuse(inner, p.vars[d], fused);
    inner = fused;
  }
  Var outer("bo"), lanes("bi");
  p.out.split(inner, outer, lanes, block).vectorize(lanes, vec).unroll(lanes);
  for (size_t d = static_cast<size_t>(dims); d < p.vars.size(); ++d) {
    Var fused("o" + std::to_string(d));
    p.out.fuse(outer, p.vars[d], fused);
    outer = fused;
  }
  if (c.at("parallel")) {
    const int grain = static_cast<int>(c.at("grain"));
    if (grain > 1) {
      Var task("task"), within("within");
      p.out.split(outer, task, within, grain).parallel(task);
    } else {
      p.out.parallel(outer);
    }
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
