#include "schedules/layernorm_cpu_space.h"

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first: tasks of `rows` rows (the dims before the normalized
// ones, fused; parallel), then per row the statistics (sum, then sum of squares of the
// centered values, then 1 / sqrt(var + epsilon)) and the output, vectorized over the
// innermost dim. The two row sums may be split into vec lanes (rfactor); the centered
// values may be stored per row instead of recomputed in the second sum and the output.
// RMSNorm has the second sum only, of the uncentered values.
LayernormCpuSpace::LayernormCpuSpace(const Workload& workload) : workload_(workload) {
  const LayernormPipeline shape = define_layernorm(workload);
  rows_ = row_count(shape.extents, shape.row_dims);
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, shape.extents[0]), "vector width in floats, over the innermost dim"},
      {"rows", values_up_to({1, 2, 4, 8, 16, 32}, rows_), "rows per task of the row loop (its grain)"},
      {"parallel", rows_ > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}, "run the row tasks in parallel"},
      // RMSNorm has no centered values to store (its "centered" is the input).
      {"stage", layernorm_is_rms(workload) ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1},
       "0: x - mean recomputed in the variance and the output; 1: stored once per row"},
      {"split_reduce", {0, 1}, "split the row sums into vec lanes (rfactor)"},
  };
}

ScheduleConfig LayernormCpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", 8);
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", 4);
  c.knobs["parallel"] = rows_ > 1 ? 1 : 0;
  c.knobs["stage"] = 0;
  c.knobs["split_reduce"] = c.knobs["vec"] > 1 ? 1 : 0;
  return c;
}

std::string LayernormCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("split_reduce") && c.at("vec") == 1) return "split_reduce needs vec > 1 lanes";
  return "";
}

ScheduledKernel LayernormCpuSpace::apply(const ScheduleConfig& c) const {
  LayernormPipeline p = define_layernorm(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const LoopLevel level =
      schedule_cpu_rows(p.out, p.dims, p.row_dims, vec, static_cast<int>(c.at("rows")), c.at("parallel") != 0);
  const int split = c.at("split_reduce") ? vec : 1;
  if (p.sum_x.defined()) compute_row_statistic(p.sum_x, level, p.r.x, p.dims[0], false, vec, split, false);
  compute_row_statistic(p.sum_sq, level, p.r.x, p.dims[0], false, vec, split, false);
  p.inv_std.compute_at(level);
  if (c.at("stage")) {
    p.centered.compute_at(level);
    // GuardWithIf: a rounded-up region would read the input past its end.
    if (vec > 1) p.centered.vectorize(p.dims[0], vec, TailStrategy::GuardWithIf);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
