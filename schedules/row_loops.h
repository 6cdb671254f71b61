#pragma once
#include <cstdint>
#include <vector>

#include <Halide.h>

#include "schedules/schedule_space.h"

namespace nee {

// Loop structure shared by the row-wise families (softmax, layernorm, strided copies of
// rows): the output's dims
// from `first_row_dim` on index rows; the dims below it are one row's elements. The
// statistics of a row (Funcs over the row-index dims, with update definitions reducing
// over the row) are computed at the level these functions return.

// Rows of every dim from first_row_dim on, as one count (1 when there are none).
int64_t row_count(const std::vector<int64_t>& extents, int first_row_dim);

// CPU, for rows without stages of their own (strided copies): fuses the row dims into
// one loop, splits it into tasks of exactly `rows` rows (parallel when asked) and
// vectorizes dims[0] by `vec`. Returns the per-row level, or root when the tensor is a
// single row.
Halide::LoopLevel schedule_cpu_rows(Halide::Func& out, const std::vector<Halide::Var>& dims, int first_row_dim,
                                    int vec, int rows, bool parallel);

// CPU, for families that compute stages per row (statistics, staged values): tasks of
// about `rows` rows split from the innermost row dim (or, where it holds fewer, from the
// one above it, whole runs of the innermost), parallel when asked; dims[0] vectorized by
// `vec`. Every row dim is then a single value at the returned per-row level, so a row's
// stages are allocated for one row. (Fused row dims, as schedule_cpu_rows makes, leave
// Halide bounding the inner one by its whole extent: the [6,197,197] softmax allocated
// 155 KB on the heap for each row, malloc and free a quarter of its profile.) Root when
// the tensor is a single row.
Halide::LoopLevel schedule_cpu_row_tasks(Halide::Func& out, const std::vector<Halide::Var>& dims,
                                         const std::vector<int64_t>& extents, int first_row_dim, int vec, int rows,
                                         bool parallel);

// GPU: one thread per row, `threads` rows per block. A single row runs on one GPU
// thread, its statistics then computed on the host (root).
Halide::LoopLevel schedule_gpu_rows(Halide::Func& out, const std::vector<Halide::Var>& dims, int first_row_dim,
                                    int threads);

// GPU, a row per block: `threads` threads share each row, thread t taking its elements
// t, t + threads, ... along dims[0] (whose extent `threads` must divide), so that
// neighbouring threads touch neighbouring elements; the other row dims run inside each
// thread. A tensor of one row is one block. Returns the block level.
Halide::LoopLevel schedule_gpu_row_blocks(Halide::Func& out, const std::vector<Halide::Var>& dims,
                                          const std::vector<int64_t>& extents, int first_row_dim, int threads);

// Computes a row statistic at a row block's level (schedule_gpu_row_blocks), its
// reduction over r (whose r.x indexes dims[0]) split across the block's `threads`
// threads (rfactor): each thread reduces the elements it takes into one partial result
// in shared memory, and one thread then combines the `threads` of them.
void compute_row_statistic_across_threads(Halide::Func& stat, const Halide::LoopLevel& block_level,
                                          const Halide::RDom& r, int threads);

// Computes a row statistic at `level`. With split > 1 its reduction over r_inner (the
// innermost RVar, which must index dims[0]) is split into `split` partial results
// (rfactor) that are vectorized (CPU) or unrolled (GPU) and combined at the end. Where
// dims[0] is a pure dim of the statistic (softmax over an outer axis) it is vectorized
// instead by `vec`, with the reduction outside it.
void compute_row_statistic(Halide::Func& stat, const Halide::LoopLevel& level, const Halide::RVar& r_inner,
                           const Halide::Var& dim0, bool dim0_is_pure, int vec, int split, bool gpu);

// The row_threads knob of a GPU row space: the largest of its values above 1 that
// divides the row's length and leaves each thread at least 4 elements, else 1.
int64_t row_block_threads(const std::vector<Knob>& knobs, int64_t row_length);
// Why a point with these row_threads, threads (rows per block) and split_reduce is
// invalid, or empty.
std::string check_row_blocks(int64_t row_threads, int64_t threads, int64_t split_reduce, int64_t row_length);

}  // namespace nee
