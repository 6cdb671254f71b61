#include "runtime/reference/row_extremes.h"

#include <cmath>
#include <limits>

#include "runtime/reference/float_lanes.h"
#include "runtime/reference/parallel_ranges.h"

namespace nee {

namespace {

typedef int32_t LaneMask __attribute__((vector_size(kFloatLanes * sizeof(int32_t))));

template <bool Max>
float better(float a, float b) {
  return Max ? (b > a ? b : a) : (b < a ? b : a);
}

// One row: whole steps of 16 lanes, then the last 16 elements once more (overlapping the
// steps, which changes no extreme); shorter rows one element at a time.
template <bool Max>
__attribute__((always_inline)) inline float row_extreme(const float* x, int64_t n) {
  if (n < kFloatLanes) {
    float e = x[0];
    bool nan = std::isnan(x[0]);
    for (int64_t k = 1; k < n; ++k) {
      e = better<Max>(e, x[k]);
      nan = nan || std::isnan(x[k]);
    }
    return nan ? std::numeric_limits<float>::quiet_NaN() : e;
  }
  FloatLanes e = *reinterpret_cast<const FloatLanes*>(x);
  LaneMask nan = e != e;
  const auto step = [&](const float* at) __attribute__((always_inline)) {
    const FloatLanes v = *reinterpret_cast<const FloatLanes*>(at);
    e = Max ? (v > e ? v : e) : (v < e ? v : e);
    nan |= v != v;
  };
  for (int64_t k = kFloatLanes; k + kFloatLanes <= n; k += kFloatLanes) step(x + k);
  step(x + n - kFloatLanes);
  float result = e[0];
  bool any_nan = nan[0] != 0;
  for (int lane = 1; lane < kFloatLanes; ++lane) {
    result = better<Max>(result, e[lane]);
    any_nan = any_nan || nan[lane] != 0;
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : result;
}

// Rows [begin, end); not templates, which GCC's target_clones does not take.
NEE_VECTOR_CLONES void maxima_of_rows(const float* x, int64_t begin, int64_t end, int64_t n, float* y) {
  for (int64_t r = begin; r < end; ++r) y[r] = row_extreme<true>(x + r * n, n);
}
NEE_VECTOR_CLONES void minima_of_rows(const float* x, int64_t begin, int64_t end, int64_t n, float* y) {
  for (int64_t r = begin; r < end; ++r) y[r] = row_extreme<false>(x + r * n, n);
}

void in_parallel(void (*rows_fn)(const float*, int64_t, int64_t, int64_t, float*), const float* x, int64_t rows,
                 int64_t n, float* y) {
  // A thread for every 256 KiB read.
  const int64_t workers = workers_for(rows * n * static_cast<int64_t>(sizeof(float)), int64_t{1} << 18, rows);
  run_in_parallel(rows, workers, [&](int64_t begin, int64_t end) { rows_fn(x, begin, end, n, y); });
}

}  // namespace

void row_maxima(const float* x, int64_t rows, int64_t n, float* y) { in_parallel(maxima_of_rows, x, rows, n, y); }
void row_minima(const float* x, int64_t rows, int64_t n, float* y) { in_parallel(minima_of_rows, x, rows, n, y); }

}  // namespace nee
