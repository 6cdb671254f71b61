#include "schedules/softmax_cpu_space.h"

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first: tasks of about `rows` rows (the dims above the axis;
// parallel; schedule_cpu_row_tasks), then per row the statistics (max, sum of exps) and
// the output over the axis and the dims below it, vectorized over the innermost dim. When the axis is the
// innermost dim the row reductions can be split into vector lanes (rfactor); otherwise
// the statistics are vectorized over the innermost dim directly.
SoftmaxCpuSpace::SoftmaxCpuSpace(const Workload& workload, CpuVectorIsa isa) : workload_(workload), isa_(isa) {
  const SoftmaxPipeline shape = define_softmax(workload);
  axis_innermost_ = shape.axis_dim == 0;
  rows_ = row_count(shape.extents, shape.axis_dim + 1);
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, shape.extents[0]), "vector width in floats, over the innermost dim"},
      {"rows", values_up_to({1, 2, 4, 8, 16, 32}, rows_), "rows per task of the row loop (its grain)"},
      {"parallel", rows_ > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}, "run the row tasks in parallel"},
      {"stage", {0, 1}, "0: exp(x - max) recomputed for the sum and the output; 1: stored once per row"},
      {"split_reduce", axis_innermost_ ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "split the row reductions into vec lanes (rfactor), for an innermost axis"},
  };
}

ScheduleConfig SoftmaxCpuSpace::default_config() const {
  ScheduleConfig c;
  // A native vector: on AVX-512 16 lanes took the [6,197,197] softmax from 113 to 109 us
  // against 8 (`nee-run` on a one-node model, 300 runs, three alternations).
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  // Tasks of 16 rows: timed cold (`nee-tune --op softmax --shape S --trials 24 --cache
  // cold`), 4-row tasks were the slowest point found on every shape tried, and 16 rows
  // the fastest or within 3% of it: [4,64,64] 26.9 -> 10.9 us, [8,96,96] 60.3 -> 38.2,
  // [4,128,128] 63.8 -> 33.3.
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", 16);
  c.knobs["parallel"] = rows_ > 1 ? 1 : 0;
  // exp is the costliest step; storing it once per row avoids computing it twice.
  c.knobs["stage"] = 1;
  c.knobs["split_reduce"] = axis_innermost_ && c.knobs["vec"] > 1 ? 1 : 0;
  return c;
}

std::string SoftmaxCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("split_reduce") && c.at("vec") == 1) return "split_reduce needs vec > 1 lanes";
  return "";
}

ScheduledKernel SoftmaxCpuSpace::apply(const ScheduleConfig& c) const {
  SoftmaxPipeline p = define_softmax(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const LoopLevel level = schedule_cpu_row_tasks(p.out, p.dims, p.extents, p.axis_dim + 1, vec,
                                                 static_cast<int>(c.at("rows")), c.at("parallel") != 0);
  const int split = c.at("split_reduce") ? vec : 1;
  compute_row_statistic(p.row_max, level, p.r.x, p.dims[0], !axis_innermost_, vec, split, false);
  compute_row_statistic(p.row_sum, level, p.r.x, p.dims[0], !axis_innermost_, vec, split, false);
  if (c.at("stage")) {
    p.exps.compute_at(level);
    // GuardWithIf: a rounded-up region would read the input past its end.
    if (vec > 1) p.exps.vectorize(p.dims[0], vec, TailStrategy::GuardWithIf);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
