#include "schedules/row_loops.h"

namespace nee {

using namespace Halide;

int64_t row_count(const std::vector<int64_t>& extents, int first_row_dim) {
  int64_t n = 1;
  for (size_t d = static_cast<size_t>(first_row_dim); d < extents.size(); ++d) n *= extents[d];
  return n;
}

namespace {

// The row dims fused into one loop var (inner to outer); false when there are none.
bool fuse_rows(Func& out, const std::vector<Var>& dims, int first_row_dim, Var& row) {
  if (first_row_dim >= static_cast<int>(dims.size())) return false;
  row = dims[first_row_dim];
  for (size_t d = static_cast<size_t>(first_row_dim) + 1; d < dims.size(); ++d) {
    Var fused(row.name() + "_" + dims[d].name());
    out.fuse(row, dims[d], fused);
    row = fused;
  }
  return true;
}

}  // namespace

LoopLevel schedule_cpu_rows(Func& out, const std::vector<Var>& dims, int first_row_dim, int vec, int rows,
                            bool parallel) {
  if (vec > 1) out.vectorize(dims[0], vec);
  Var row;
  if (!fuse_rows(out, dims, first_row_dim, row)) return LoopLevel::root();
  Var task("task"), row_in_task("row_in_task");
  out.split(row, task, row_in_task, rows);
  if (parallel) out.parallel(task);
  return LoopLevel(out, row_in_task);
}

LoopLevel schedule_gpu_rows(Func& out, const std::vector<Var>& dims, int first_row_dim, int threads) {
  Var row;
  if (!fuse_rows(out, dims, first_row_dim, row)) {
    out.gpu_single_thread();
    return LoopLevel::root();
  }
  Var block("block"), thread("thread");
  out.split(row, block, thread, threads).gpu_blocks(block).gpu_threads(thread);
  return LoopLevel(out, thread);
}

void compute_row_statistic(Func& stat, const LoopLevel& level, const RVar& r_inner, const Var& dim0,
                           bool dim0_is_pure, int vec, int split, bool gpu) {
  stat.compute_at(level);
  if (dim0_is_pure) {
    // GuardWithIf: a rounded-up region would read the input past its end.
    if (vec > 1) {
      stat.vectorize(dim0, vec, TailStrategy::GuardWithIf);
      stat.update().reorder(dim0, r_inner).vectorize(dim0, vec, TailStrategy::GuardWithIf);
    }
    return;
  }
  if (split <= 1) return;
  RVar outer("r_outer"), lane("r_lane");
  Var u("lane");
  Func partial = stat.update().split(r_inner, outer, lane, split).rfactor(lane, u);
  partial.compute_at(level);
  partial.update().reorder(u, outer);
  if (gpu) {
    partial.unroll(u);
    partial.update().unroll(u);
  } else {
    partial.vectorize(u);
    partial.update().vectorize(u);
  }
}

}  // namespace nee
