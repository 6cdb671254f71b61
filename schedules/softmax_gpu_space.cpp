#include "schedules/softmax_gpu_space.h"

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

SoftmaxGpuSpace::SoftmaxGpuSpace(const Workload& workload) : workload_(workload) {
  const SoftmaxPipeline shape = define_softmax(workload);
  axis_innermost_ = shape.axis_dim == 0;
  rows_ = row_count(shape.extents, shape.axis_dim + 1);
  length_ = shape.extents[shape.axis_dim];
  knobs_ = {
      {"threads", values_up_to({1, 8, 32, 64, 128, 256}, rows_), "rows per thread block, one thread each"},
      {"split_reduce", axis_innermost_ ? values_up_to({1, 2, 4, 8}, length_) : std::vector<int64_t>{1},
       "partial results each row reduction is split into (registers, combined at the end)"},
  };
}

ScheduleConfig SoftmaxGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", 64);
  c.knobs["split_reduce"] = largest_value_up_to(knobs_, "split_reduce", 4);
  return c;
}

std::string SoftmaxGpuSpace::check_constraints(const ScheduleConfig&) const { return ""; }

ScheduledKernel SoftmaxGpuSpace::apply(const ScheduleConfig& c) const {
  SoftmaxPipeline p = define_softmax(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const LoopLevel level = schedule_gpu_rows(p.out, p.dims, p.axis_dim + 1, static_cast<int>(c.at("threads")));
  const int split = static_cast<int>(c.at("split_reduce"));
  compute_row_statistic(p.row_max, level, p.r.x, p.dims[0], !axis_innermost_, 1, split, true);
  compute_row_statistic(p.row_sum, level, p.r.x, p.dims[0], !axis_innermost_, 1, split, true);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
