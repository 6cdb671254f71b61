#pragma once
#include <cstdint>

namespace nee {

// C[m x n] += A[m x k] * B[k x n] in float, for the reference Conv and ConvTranspose
// (after im2col / before col2im). B and C are row-major with row strides ldb and ldc;
// A's element (i, p) is a[i * a_row_stride + p * a_col_stride], so A may be transposed.
void gemm_accumulate(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row_stride,
                     int64_t a_col_stride, const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace nee
