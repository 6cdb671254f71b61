#include "schedules/resize_cpu_space.h"

#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first: tasks of `rows` output rows of one plane (the row
// tiles fused with the outer dims; parallel when asked), then per output row its columns
// in vectors of `vec` (a blocked tensor's: its columns, each its lanes in vectors). The
// taps' tables (one entry per output column and per output row) are computed once per
// call. Linear interpolation with stage = 1 first interpolates
// every input row at every output column (one pass, parallel over the input rows), and
// each output then reads two of those rows in whole vectors; with stage = 0 every output
// gathers its four inputs.
ResizeCpuSpace::ResizeCpuSpace(const Workload& workload, CpuVectorIsa isa) : workload_(workload), isa_(isa) {
  const ResizePipeline shape = define_resize(workload);
  extents_ = shape.extents;
  linear_ = shape.linear;
  w_dim_ = shape.w_dim;
  const std::vector<int64_t>& in = workload.inputs[0].shape;
  in_h_ = in[in.size() - 2 - static_cast<size_t>(w_dim_)];
  for (size_t d = static_cast<size_t>(w_dim_) + 2; d < extents_.size(); ++d) planes_ *= extents_[d];
  const int64_t row_tasks = extents_[w_dim_ + 1] * planes_;
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, extents_[0]),
       "vector width in floats, over the output's columns (a blocked tensor's lanes)"},
      {"rows", values_up_to({1, 2, 4, 8, 16, 32, 64}, extents_[w_dim_ + 1]), "output rows per task"},
      {"parallel", row_tasks > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "run the row tasks on all cores"},
      {"stage", linear_ ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "linear: 1 interpolates each input row along W once, for every output row that reads it; 0 gathers "
       "four inputs per output"},
  };
}

int64_t ResizeCpuSpace::tasks(const ScheduleConfig& c) const {
  return ceil_div(extents_[w_dim_ + 1], c.at("rows")) * planes_;
}

ScheduleConfig ResizeCpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  // Tasks of about 16K outputs (as the strided copies'), in parallel from two of them.
  const int64_t task_outputs = 16384;
  const int64_t row_outputs = w_dim_ ? extents_[0] * extents_[1] : extents_[0];
  const int64_t wanted_rows = std::max<int64_t>(1, task_outputs / row_outputs);
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", wanted_rows);
  c.knobs["parallel"] = workload_.output.elements() >= 2 * task_outputs && tasks(c) > 1 ? 1 : 0;
  // Upsampling reads each input row for several output rows: interpolating it once along
  // W saves the gathers of every output row after the first.
  c.knobs["stage"] = linear_ && in_h_ < extents_[1] ? 1 : 0;
  return c;
}

std::string ResizeCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("parallel") && tasks(c) < 2) return "a parallel loop of one task";
  return "";
}

ScheduledKernel ResizeCpuSpace::apply(const ScheduleConfig& c) const {
  ResizePipeline p = define_resize(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const bool parallel = c.at("parallel") != 0;
  const Var y = p.row();
  const size_t outer = static_cast<size_t>(p.w_dim) + 2;  // the first outer dim
  Var yo("yo"), yi("yi"), task("task");
  p.out.split(y, yo, yi, static_cast<int>(c.at("rows")));
  std::vector<VarOrRVar> order(p.dims.begin(), p.dims.begin() + p.w_dim + 1);  // lanes, columns
  order.insert(order.end(), {yi, yo});
  for (size_t d = outer; d < p.dims.size(); ++d) order.push_back(p.dims[d]);
  p.out.reorder(order);
  Var fused = yo;
  for (size_t d = outer; d < p.dims.size(); ++d) {
    Var next("task" + std::to_string(d));
    p.out.fuse(fused, p.dims[d], next);
    fused = next;
  }
  if (parallel) p.out.parallel(fused);
  if (vec > 1) p.out.vectorize(p.dims[0], vec);
  for (Func table : p.tables()) table.compute_root();
  if (p.linear && c.at("stage")) {
    // Every input row at every output column, before the output's loop.
    Var row_fused = y;
    for (size_t d = outer; d < p.dims.size(); ++d) {
      Var next("row" + std::to_string(d));
      p.rows.fuse(row_fused, p.dims[d], next);
      row_fused = next;
    }
    p.rows.compute_root();
    if (parallel) p.rows.parallel(row_fused);
    if (vec > 1) p.rows.vectorize(p.dims[0], vec);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
