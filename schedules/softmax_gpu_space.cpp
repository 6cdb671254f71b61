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
      {"row_threads", axis_innermost_ ? values_up_to({1, 32, 64, 128, 256}, length_) : std::vector<int64_t>{1},
       "1: a thread per row; else a block per row, its threads sharing the row and its reductions", 1},
  };
}

ScheduleConfig SoftmaxGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", 64);
  c.knobs["split_reduce"] = largest_value_up_to(knobs_, "split_reduce", 4);
  c.knobs["row_threads"] = 1;
  // Rows of 128 or more (attention's): a block per row, at least 4 elements a thread.
  const int64_t shared = length_ >= 128 ? row_block_threads(knobs_, length_) : 1;
  if (shared > 1) c.knobs = {{"threads", 1}, {"split_reduce", 1}, {"row_threads", shared}};
  return c;
}

std::string SoftmaxGpuSpace::check_constraints(const ScheduleConfig& c) const {
  return check_row_blocks(c.at("row_threads"), c.at("threads"), c.at("split_reduce"), length_);
}

ScheduledKernel SoftmaxGpuSpace::apply(const ScheduleConfig& c) const {
  SoftmaxPipeline p = define_softmax(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int row_threads = static_cast<int>(c.at("row_threads"));
  if (row_threads > 1) {
    const LoopLevel block = schedule_gpu_row_blocks(p.out, p.dims, p.extents, p.axis_dim + 1, row_threads);
    compute_row_statistic_across_threads(p.row_max, block, p.r, row_threads);
    compute_row_statistic_across_threads(p.row_sum, block, p.r, row_threads);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }
  const LoopLevel level = schedule_gpu_rows(p.out, p.dims, p.axis_dim + 1, static_cast<int>(c.at("threads")));
  const int split = static_cast<int>(c.at("split_reduce"));
  compute_row_statistic(p.row_max, level, p.r.x, p.dims[0], !axis_innermost_, 1, split, true);
  compute_row_statistic(p.row_sum, level, p.r.x, p.dims[0], !axis_innermost_, 1, split, true);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
