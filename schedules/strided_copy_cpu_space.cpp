#include "schedules/strided_copy_cpu_space.h"

#include <algorithm>

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// Two loop nests, by whether the copy moves the input's innermost dim.
// Rows (every Slice, and Transposes that keep the innermost dim, such as attention's
// [0,2,1,3]): an output row reads one contiguous (or evenly strided) input run, so each
// row is copied in vectors of `vec` along dim 0, and the rows (every other dim, fused)
// are split into tasks of `grain` rows, parallel when asked.
// Tiles (Transposes that move the innermost dim, such as attention's key [0,2,3,1]):
// the output's dim 0 and the dim y that reads the input's innermost dim are tiled by
// tile_x x tile_y, so a tile reads tile_y-long runs of tile_x input rows and writes
// tile_x-long runs of tile_y output rows, both from cache. Inside a tile, dim 0 is
// vectorized by vec; with stage = 1 each vec x vec block is first read along y (whole
// vectors of the input) into a block the output then reads along x. The tiles and every
// other dim form the outer loop, split into tasks of `grain` tiles.
StridedCopyCpuSpace::StridedCopyCpuSpace(const Workload& workload, CpuVectorIsa isa)
    : workload_(workload), isa_(isa) {
  const StridedCopyPipeline shape = define_strided_copy(workload);
  extents_ = shape.extents;
  inner_source_dim_ = shape.inner_source_dim;
  transposes_ = inner_source_dim_ != 0;
  const int64_t x_extent = extents_[0];
  const int64_t y_extent = transposes_ ? extents_[inner_source_dim_] : 1;
  // The most outer iterations any point has: rows, or tiles of the smallest size.
  const int64_t most_outer = workload.output.elements() / (transposes_ ? 1 : x_extent);
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, x_extent), "vector width in floats, over the output's innermost dim"},
      {"tile_x", transposes_ ? values_up_to({1, 2, 4, 8, 16, 32, 64}, x_extent) : std::vector<int64_t>{0},
       "tile extent along the output's innermost dim (0: whole rows, for a copy that keeps the innermost dim)"},
      {"tile_y", transposes_ ? values_up_to({1, 2, 4, 8, 16, 32, 64}, y_extent) : std::vector<int64_t>{0},
       "tile extent along the output dim that reads the input's innermost dim (0: no tile)"},
      {"stage", transposes_ ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "1: each vec x vec block is read in input-order vectors first, then written in output-order vectors"},
      {"parallel", most_outer > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "run the outer loop's tasks on all cores"},
      {"grain", values_up_to({1, 2, 4, 8, 16, 32, 64, 128, 256, 1024}, most_outer),
       "outer-loop iterations (rows or tiles) per parallel task"},
  };
}

int64_t StridedCopyCpuSpace::outer_iterations(const ScheduleConfig& c) const {
  if (!transposes_) return workload_.output.elements() / extents_[0];
  int64_t n = ceil_div(extents_[0], c.at("tile_x")) * ceil_div(extents_[inner_source_dim_], c.at("tile_y"));
  for (size_t d = 1; d < extents_.size(); ++d) {
    if (static_cast<int>(d) != inner_source_dim_) n *= extents_[d];
  }
  return n;
}

ScheduleConfig StridedCopyCpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  c.knobs["tile_x"] = largest_value_up_to(knobs_, "tile_x", 32);
  c.knobs["tile_y"] = largest_value_up_to(knobs_, "tile_y", 32);
  if (transposes_ && c.knobs["tile_x"] % c.knobs["vec"] != 0) c.knobs["vec"] = 1;
  // Unstaged: staged register blocks won with warm caches (BERT's key transpose [128,4,64]
  // -> [4,64,128], AVX-512, 1.47 against 3.19 us), but timed cold, as a model meets a
  // transpose, they lost on every shape tried (`nee-tune --op strided_copy --shape S
  // --trials 30 --cache cold`, default against best, the best unstaged in four of five):
  // [197,6,64] -> [6,64,197] 85 against 40 us, [1,384,196] -> [1,196,384] 85 against 28,
  // [128,4,64] -> [4,64,128] 22 against 15, [1,768,49] -> [1,49,768] 26 against 17.
  c.knobs["stage"] = 0;
  // Tasks of about 16K elements, parallel from two of them: BERT's [128,4,64] ->
  // [4,128,64] (32K elements) ran 1.70 us in two tasks, 2.40 us in four and 2.80 us
  // serial (same run).
  const int64_t task_elements = 16384;
  const bool parallel = workload_.output.elements() >= 2 * task_elements;
  c.knobs["parallel"] = parallel ? 1 : 0;
  const int64_t per_iteration = workload_.output.elements() / outer_iterations(c);
  c.knobs["grain"] = parallel ? largest_value_up_to(knobs_, "grain",
                                                    std::min(std::max<int64_t>(1, task_elements / per_iteration),
                                                             outer_iterations(c)))
                              : 1;
  return c;
}

std::string StridedCopyCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (transposes_ && c.at("tile_x") % c.at("vec") != 0) return "vec does not divide tile_x";
  if (c.at("stage") && (c.at("vec") == 1 || c.at("tile_y") % c.at("vec") != 0)) {
    return "stage needs vec > 1 dividing tile_y (its blocks are vec x vec)";
  }
  if (c.at("parallel") == 0 && c.at("grain") != 1) return "grain is 1 when the outer loop is serial";
  if (c.at("grain") > outer_iterations(c)) return "grain exceeds the outer loop's iterations";
  return "";
}

ScheduledKernel StridedCopyCpuSpace::apply(const ScheduleConfig& c) const {
  StridedCopyPipeline p = define_strided_copy(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const int grain = static_cast<int>(c.at("grain"));
  const bool parallel = c.at("parallel") != 0;
  if (!transposes_) {
    schedule_cpu_rows(p.out, p.dims, 1, vec, grain, parallel);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }

  const Var x = p.dims[0], y = p.dims[inner_source_dim_];
  Var xt("xt"), yt("yt"), xi("xi"), yi("yi"), xb("xb"), xv("xv");
  p.out.tile(x, y, xt, yt, xi, yi, static_cast<int>(c.at("tile_x")), static_cast<int>(c.at("tile_y")));
  p.out.split(xi, xb, xv, vec).vectorize(xv);
  std::vector<VarOrRVar> order;
  if (c.at("stage")) {
    Var yb("yb"), yv("yv");
    p.out.split(yi, yb, yv, vec).unroll(yv);
    order = {xv, yv, xb, yb};
    p.read.compute_at(p.out, xb).reorder(y, x).vectorize(y, vec).unroll(x, vec);
  } else {
    // A vector gathers one element from each of vec input rows; the tile's next row reads
    // the next element of the same input rows, from the lines the last one loaded.
    order = {xv, yi, xb};
  }
  order.push_back(xt);
  order.push_back(yt);
  for (size_t d = 1; d < p.dims.size(); ++d) {
    if (static_cast<int>(d) != inner_source_dim_) order.push_back(p.dims[d]);
  }
  p.out.reorder(order);
  Var outer = xt;
  for (size_t i = order.size() - p.dims.size() + 1; i < order.size(); ++i) {
    Var fused("o" + std::to_string(i));
    p.out.fuse(outer, order[i].var, fused);
    outer = fused;
  }
  if (parallel) {
    Var task("task"), within("within");
    p.out.split(outer, task, within, grain).parallel(task);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
