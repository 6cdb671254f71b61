#pragma once
#include <cstdint>
#include <vector>

#include <Halide.h>

namespace nee {

// Loop structure shared by the row-wise families (softmax, layernorm): the output's dims
// from `first_row_dim` on index rows; the dims below it are one row's elements. The
// statistics of a row (Funcs over the row-index dims, with update definitions reducing
// over the row) are computed at the level these functions return.

// Rows of every dim from first_row_dim on, as one count (1 when there are none).
int64_t row_count(const std::vector<int64_t>& extents, int first_row_dim);

// CPU: fuses the row dims into one loop, splits it into tasks of `rows` rows (parallel
// when asked) and vectorizes dims[0] by `vec`. Returns the per-row level, or root when
// the tensor is a single row.
Halide::LoopLevel schedule_cpu_rows(Halide::Func& out, const std::vector<Halide::Var>& dims, int first_row_dim,
                                    int vec, int rows, bool parallel);

// GPU: one thread per row, `threads` rows per block. A single row runs on one GPU
// thread, its statistics then computed on the host (root).
Halide::LoopLevel schedule_gpu_rows(Halide::Func& out, const std::vector<Halide::Var>& dims, int first_row_dim,
                                    int threads);

// Computes a row statistic at `level`. With split > 1 its reduction over r_inner (the
// innermost RVar, which must index dims[0]) is split into `split` partial results
// (rfactor) that are vectorized (CPU) or unrolled (GPU) and combined at the end. Where
// dims[0] is a pure dim of the statistic (softmax over an outer axis) it is vectorized
// instead by `vec`, with the reduction outside it.
void compute_row_statistic(Halide::Func& stat, const Halide::LoopLevel& level, const Halide::RVar& r_inner,
                           const Halide::Var& dim0, bool dim0_is_pure, int vec, int split, bool gpu);

}  // namespace nee
