#include "schedules/layernorm_gpu_space.h"

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

LayernormGpuSpace::LayernormGpuSpace(const Workload& workload) : workload_(workload) {
  const LayernormPipeline shape = define_layernorm(workload);
  rows_ = row_count(shape.extents, shape.row_dims);
  knobs_ = {
      {"threads", values_up_to({1, 8, 32, 64, 128, 256}, rows_), "rows per thread block, one thread each"},
      {"split_reduce", values_up_to({1, 2, 4, 8}, shape.extents[0]),
       "partial results each row sum is split into (registers, combined at the end)"},
  };
}

ScheduleConfig LayernormGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", 64);
  c.knobs["split_reduce"] = largest_value_up_to(knobs_, "split_reduce", 4);
  return c;
}

std::string LayernormGpuSpace::check_constraints(const ScheduleConfig&) const { return ""; }

ScheduledKernel LayernormGpuSpace::apply(const ScheduleConfig& c) const {
  LayernormPipeline p = define_layernorm(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const LoopLevel level = schedule_gpu_rows(p.out, p.dims, p.row_dims, static_cast<int>(c.at("threads")));
  const int split = static_cast<int>(c.at("split_reduce"));
  compute_row_statistic(p.sum_x, level, p.r.x, p.dims[0], false, 1, split, true);
  compute_row_statistic(p.sum_sq, level, p.r.x, p.dims[0], false, 1, split, true);
  p.inv_std.compute_at(level);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
