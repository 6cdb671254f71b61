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
      {"row_threads", values_up_to({1, 32, 64, 128, 256}, shape.extents[0]),
       "1: a thread per row; else a block per row, its threads sharing the row and its sums", 1},
  };
  row_length_ = shape.extents[0];
}

ScheduleConfig LayernormGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", 64);
  c.knobs["split_reduce"] = largest_value_up_to(knobs_, "split_reduce", 4);
  c.knobs["row_threads"] = 1;
  // Rows of 128 or more (a transformer's hidden size): a block per row, at least 4
  // elements a thread.
  const int64_t shared = row_length_ >= 128 ? row_block_threads(knobs_, row_length_) : 1;
  if (shared > 1) c.knobs = {{"threads", 1}, {"split_reduce", 1}, {"row_threads", shared}};
  return c;
}

std::string LayernormGpuSpace::check_constraints(const ScheduleConfig& c) const {
  return check_row_blocks(c.at("row_threads"), c.at("threads"), c.at("split_reduce"), row_length_);
}

ScheduledKernel LayernormGpuSpace::apply(const ScheduleConfig& c) const {
  LayernormPipeline p = define_layernorm(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int row_threads = static_cast<int>(c.at("row_threads"));
  if (row_threads > 1) {
    const LoopLevel block = schedule_gpu_row_blocks(p.out, p.dims, p.extents, p.row_dims, row_threads);
    if (p.sum_x.defined()) compute_row_statistic_across_threads(p.sum_x, block, p.r, row_threads);
    compute_row_statistic_across_threads(p.sum_sq, block, p.r, row_threads);
    p.inv_std.compute_at(block);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }
  const LoopLevel level = schedule_gpu_rows(p.out, p.dims, p.row_dims, static_cast<int>(c.at("threads")));
  const int split = static_cast<int>(c.at("split_reduce"));
  if (p.sum_x.defined()) compute_row_statistic(p.sum_x, level, p.r.x, p.dims[0], false, 1, split, true);
  compute_row_statistic(p.sum_sq, level, p.r.x, p.dims[0], false, 1, split, true);
  p.inv_std.compute_at(level);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
