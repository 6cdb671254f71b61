#include "schedules/row_loops.h"

#include <algorithm>

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

LoopLevel schedule_cpu_row_tasks(Func& out, const std::vector<Var>& dims, const std::vector<int64_t>& extents,
                                 int first_row_dim, int vec, int rows, bool parallel) {
  if (vec > 1) out.vectorize(dims[0], vec);
  const size_t first = static_cast<size_t>(first_row_dim);
  if (first >= dims.size()) return LoopLevel::root();
  // The tasks split the innermost row dim, or, where it holds fewer than `rows` rows, the
  // one above it; the dims above the split one are fused into the task loop.
  const bool split_next = extents[first] < rows && first + 1 < dims.size();
  const size_t split_dim = split_next ? first + 1 : first;
  const int64_t factor = split_next ? ceil_div(rows, extents[first]) : rows;
  Var task("task"), in_task("row_in_task");
  out.split(dims[split_dim], task, in_task, static_cast<int>(std::min(factor, extents[split_dim])));
  for (size_t d = split_dim + 1; d < dims.size(); ++d) {
    Var fused(task.name() + "_" + dims[d].name());
    out.fuse(task, dims[d], fused);
    task = fused;
  }
  if (parallel) out.parallel(task);
  return split_next ? LoopLevel(out, dims[first]) : LoopLevel(out, in_task);
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

LoopLevel schedule_gpu_row_blocks(Func& out, const std::vector<Var>& dims, const std::vector<int64_t>& extents,
                                  int first_row_dim, int threads) {
  Var row, first = dims[0];
  if (!fuse_rows(out, dims, first_row_dim, row)) {
    // One row: a unit loop outside its elements becomes the one block.
    Var elements("elements");
    out.split(dims[0], row, elements, static_cast<int>(extents[0]));
    first = elements;
  }
  Var element_outer("element_outer"), thread("thread");
  out.split(first, element_outer, thread, threads);
  std::vector<VarOrRVar> order = {element_outer};
  for (int d = 1; d < first_row_dim; ++d) order.push_back(dims[d]);
  order.push_back(thread);
  order.push_back(row);
  out.reorder(order).gpu_blocks(row).gpu_threads(thread);
  return LoopLevel(out, row);
}

void compute_row_statistic_across_threads(Func& stat, const LoopLevel& block_level, const RDom& r, int threads) {
  stat.compute_at(block_level);
  RVar outer("r_outer"), lane("r_thread");
  Var part("part");
  Func partial = stat.update().split(r.x, outer, lane, threads).rfactor(lane, part);
  partial.compute_at(block_level).gpu_threads(part);
  // Each thread runs its whole share inside one thread loop (rfactor puts `part`
  // innermost, which would make a thread loop, and a barrier, per element).
  std::vector<VarOrRVar> order = {outer};
  for (int d = 1; d < r.dimensions(); ++d) order.push_back(r[d]);
  order.push_back(part);
  partial.update().reorder(order).gpu_threads(part);
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
    // The lanes innermost in memory too: rfactor puts the new dim last, so where the
    // statistic is computed for several rows at once (attention's tasks of 16 queries)
    // each lane vector was a 16-lane gather and scatter with the rows' stride (ViT's
    // [6,197,197,64] attention on one thread, a Halide harness: 1190 -> 657 us).
    std::vector<Var> storage = {u};
    for (const Var& v : partial.args()) {
      if (v.name() != u.name()) storage.push_back(v);
    }
    if (storage.size() > 1) partial.reorder_storage(storage);
    // The lanes combine as one horizontal vector reduction, where a scalar loop carried
    // each partial result through memory (the [6,197,197] softmax, with per-row tasks:
    // 112 -> 99 us in a Halide harness, 2 threads, Emerald Rapids).
    stat.update().atomic().vectorize(lane);
  }
}

int64_t row_block_threads(const std::vector<Knob>& knobs, int64_t row_length) {
  for (const Knob& knob : knobs) {
    if (knob.name != "row_threads") continue;
    int64_t best = 1;
    for (const int64_t t : knob.values) {
      if (t > best && row_length % t == 0 && row_length / t >= 4) best = t;
    }
    return best;
  }
  return 1;
}

std::string check_row_blocks(int64_t row_threads, int64_t threads, int64_t split_reduce, int64_t row_length) {
  if (row_threads == 1) return "";
  if (row_length % row_threads) return "row_threads does not divide the row's length";
  if (threads != 1) return "a block per row (row_threads > 1) takes threads = 1";
  if (split_reduce != 1) return "row_threads > 1 splits the reductions across threads, so split_reduce must be 1";
  return "";
}

}  // namespace nee
