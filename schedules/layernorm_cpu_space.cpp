#include "schedules/layernorm_cpu_space.h"

#include <algorithm>

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first: tasks of about `rows` rows (the dims before the
// normalized ones; parallel; schedule_cpu_row_tasks), then per row the statistics (sum,
// then sum of squares of the centered values, then 1 / sqrt(var + epsilon)) and the
// output, vectorized over the innermost dim. The two row sums may be split into vec lanes (rfactor); the centered
// values may be stored per row instead of recomputed in the second sum and the output.
// RMSNorm has the second sum only, of the uncentered values.
LayernormCpuSpace::LayernormCpuSpace(const Workload& workload, CpuVectorIsa isa)
    : workload_(workload), isa_(isa) {
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
  // A native vector, and tasks of rows enough for 8 of them. Timed with `nee-tune --op
  // layernorm --shape S --trials 40` (Emerald Rapids, 2 threads), against the former
  // default of 8 lanes and 4-row tasks: 1x3136x96 45.3 us against 102.6 (the best point
  // found 42.2), 1x784x192 22.5 against 40.2 (22.3), 1x197x384 14.5 against 20.6 (14.4),
  // 1x128x768 18.0 against 23.6 (15.4), 1x64x256 3.5 against 4.3 (2.9), 1x50x768 8.8
  // against 10.5 (9.0: 16-row tasks would leave a core idle). 8 lanes lost to 16 on each.
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", std::max<int64_t>(1, rows_ / 8));
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
  const LoopLevel level = schedule_cpu_row_tasks(p.out, p.dims, p.extents, p.row_dims, vec,
                                                 static_cast<int>(c.at("rows")), c.at("parallel") != 0);
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
