#include "schedules/strided_copy_gpu_space.h"

#include <algorithm>

#include "schedules/gpu_block.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest: a block of threads_x x threads_y threads covers threads_x elements of
// the output's dim 0 by threads_y x rows_per_thread elements of dim y, each thread
// storing rows_per_thread of them threads_y rows apart; the blocks run over the tiles
// and every other dim (fused). Dim y is the one that reads the input's innermost dim
// when the copy transposes it (attention's key [0,2,3,1]), else the output's dim 1.
// Threads along dim 0 write contiguous output; in a transpose they read input elements a
// row apart, unless stage = 1 has the block first load its tile into shared memory with
// the threads laid along y, reading contiguous input, and then store it from there.
StridedCopyGpuSpace::StridedCopyGpuSpace(const Workload& workload) : workload_(workload) {
  const StridedCopyPipeline shape = define_strided_copy(workload);
  extents_ = shape.extents;
  transposes_ = shape.inner_source_dim != 0;
  y_dim_ = transposes_ ? shape.inner_source_dim : extents_.size() > 1 ? 1 : 0;
  const int64_t y_extent = y_dim_ ? extents_[y_dim_] : 1;
  knobs_ = {
      {"threads_x", values_up_to({1, 4, 8, 16, 32, 64}, extents_[0]), "threads of a block along the output's dim 0"},
      {"threads_y", values_up_to({1, 2, 4, 8, 16, 32}, y_extent), "threads of a block along dim y"},
      {"rows_per_thread", values_up_to({1, 2, 4, 8}, y_extent), "elements along dim y each thread stores"},
      {"stage", transposes_ ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
       "1: a transpose's tile goes through shared memory, read along y and written along dim 0"},
  };
}

ScheduleConfig StridedCopyGpuSpace::default_config() const {
  ScheduleConfig c;
  const int64_t y_extent = y_dim_ ? extents_[y_dim_] : 1;
  if (transposes_) {
    // 32 x 32 tiles staged in shared memory, stored by 32 x 8 threads of 4 elements each:
    // the shape of NVIDIA's shared-memory transpose (M. Harris, "An Efficient Matrix
    // Transpose in CUDA C/C++"), which coalesces both sides.
    const int64_t tile = largest_value_up_to(knobs_, "threads_x", std::min<int64_t>(32, y_extent));
    c.knobs["threads_x"] = tile;
    c.knobs["rows_per_thread"] = largest_value_up_to(knobs_, "rows_per_thread", std::min<int64_t>(4, tile));
    c.knobs["threads_y"] = tile / c.knobs["rows_per_thread"];
    c.knobs["stage"] = tile >= 8 ? 1 : 0;
    return c;
  }
  // Rows: blocks of 256 threads (the elementwise family's default block), as wide as the
  // row allows up to 64.
  c.knobs["threads_x"] = largest_value_up_to(knobs_, "threads_x", 64);
  c.knobs["threads_y"] = largest_value_up_to(knobs_, "threads_y", 256 / c.knobs["threads_x"]);
  c.knobs["rows_per_thread"] = 1;
  c.knobs["stage"] = 0;
  return c;
}

std::string StridedCopyGpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t y_extent = y_dim_ ? extents_[y_dim_] : 1;
  if (c.at("threads_y") * c.at("rows_per_thread") > y_extent) return "a block's rows exceed dim y";
  if (c.at("threads_x") * c.at("threads_y") > kGpuMaxThreadsPerBlock) return "a block has more than 1024 threads";
  if (c.at("stage") && c.at("threads_x") != c.at("threads_y") * c.at("rows_per_thread")) {
    return "stage needs a square tile (threads_x = threads_y x rows_per_thread), loaded by the threads that store it";
  }
  return "";
}

ScheduledKernel StridedCopyGpuSpace::apply(const ScheduleConfig& c) const {
  StridedCopyPipeline p = define_strided_copy(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int tx = static_cast<int>(c.at("threads_x"));
  const int ty = static_cast<int>(c.at("threads_y"));
  const int rows = static_cast<int>(c.at("rows_per_thread"));
  const Var x = p.dims[0];
  Var xo("xo"), xi("xi");
  p.out.split(x, xo, xi, tx);
  std::vector<VarOrRVar> order;
  std::vector<Var> blocks = {xo};
  if (y_dim_) {
    const Var y = p.dims[y_dim_];
    Var yo("yo"), yi("yi"), yr("yr"), yt("yt");
    p.out.split(y, yo, yi, ty * rows).split(yi, yr, yt, ty).unroll(yr);
    order = {yr, xi, yt, xo, yo};
    blocks.push_back(yo);
    p.out.gpu_threads(xi, yt);
    if (c.at("stage")) {
      Var ro("ro"), ri("ri");
      p.read.compute_at(p.out, xo)
          .store_in(MemoryType::GPUShared)
          .split(x, ro, ri, ty)
          .reorder(ro, y, ri)
          .gpu_threads(y, ri)
          .unroll(ro);
    }
  } else {
    order = {xi, xo};
    p.out.gpu_threads(xi);
  }
  std::vector<Var> rest;
  for (size_t d = 1; d < p.dims.size(); ++d) {
    if (static_cast<int>(d) != y_dim_) rest.push_back(p.dims[d]);
  }
  for (const Var& d : rest) order.push_back(d);
  p.out.reorder(order);
  if (!rest.empty()) {
    Var fused = rest[0];
    for (size_t i = 1; i < rest.size(); ++i) {
      Var next("r" + std::to_string(i));
      p.out.fuse(fused, rest[i], next);
      fused = next;
    }
    blocks.push_back(fused);
  }
  if (blocks.size() == 1) p.out.gpu_blocks(blocks[0]);
  if (blocks.size() == 2) p.out.gpu_blocks(blocks[0], blocks[1]);
  if (blocks.size() == 3) p.out.gpu_blocks(blocks[0], blocks[1], blocks[2]);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
