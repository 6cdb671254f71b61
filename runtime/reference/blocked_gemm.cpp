#include "runtime/reference/blocked_gemm.h"

#include <algorithm>

namespace nee {

namespace {

// A 256 x 256 block of B (256 KiB) stays in L2 while every row block of C passes over
// it; four rows of C share each load of a B row, and the innermost loop runs over
// contiguous columns so it vectorizes.
constexpr int64_t kColumnBlock = 256;
constexpr int64_t kDepthBlock = 256;
constexpr int64_t kRows = 4;

void update_four_rows(int64_t width, int64_t depth, const float* a, int64_t a_row_stride,
                      int64_t a_col_stride, const float* b, int64_t ldb, float* c, int64_t ldc) {
  float* __restrict__ c0 = c;
  float* __restrict__ c1 = c + ldc;
  float* __restrict__ c2 = c + 2 * ldc;
  float* __restrict__ c3 = c + 3 * ldc;
  for (int64_t p = 0; p < depth; ++p) {
    const float* __restrict__ b_row = b + p * ldb;
    const float* a_col = a + p * a_col_stride;
    const float a0 = a_col[0], a1 = a_col[a_row_stride], a2 = a_col[2 * a_row_stride],
                a3 = a_col[3 * a_row_stride];
    for (int64_t j = 0; j < width; ++j) {
      const float bv = b_row[j];
      c0[j] += a0 * bv;
      c1[j] += a1 * bv;
      c2[j] += a2 * bv;
      c3[j] += a3 * bv;
    }
  }
}

void update_one_row(int64_t width, int64_t depth, const float* a, int64_t a_col_stride, const float* b,
                    int64_t ldb, float* c) {
  float* __restrict__ c0 = c;
  for (int64_t p = 0; p < depth; ++p) {
    const float* __restrict__ b_row = b + p * ldb;
    const float a0 = a[p * a_col_stride];
    for (int64_t j = 0; j < width; ++j) c0[j] += a0 * b_row[j];
  }
}

}  // namespace

void gemm_accumulate(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row_stride,
                     int64_t a_col_stride, const float* b, int64_t ldb, float* c, int64_t ldc) {
  for (int64_t j0 = 0; j0 < n; j0 += kColumnBlock) {
    const int64_t width = std::min(kColumnBlock, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kDepthBlock) {
      const int64_t depth = std::min(kDepthBlock, k - p0);
      const float* a_block = a + p0 * a_col_stride;
      const float* b_block = b + p0 * ldb + j0;
      int64_t i = 0;
      for (; i + kRows <= m; i += kRows) {
        update_four_rows(width, depth, a_block + i * a_row_stride, a_row_stride, a_col_stride, b_block, ldb,
                         c + i * ldc + j0, ldc);
      }
      for (; i < m; ++i) {
        update_one_row(width, depth, a_block + i * a_row_stride, a_col_stride, b_block, ldb, c + i * ldc + j0);
      }
    }
  }
}

}  // namespace nee
