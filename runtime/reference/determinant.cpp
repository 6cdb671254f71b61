#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// The determinant of the m x m row-major matrix `a` (overwritten), by LU decomposition
// with partial pivoting: the product of the pivots, negated once per row swap. An
// exactly zero pivot column makes the matrix singular; an empty matrix has determinant 1.
double lu_determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t col = 0; col < m; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < m; ++r) {
      if (std::abs(a[r * m + col]) > std::abs(a[pivot * m + col])) pivot = r;
    }
    if (a[pivot * m + col] == 0) return 0;
    if (pivot != col) {
      for (int64_t c = 0; c < m; ++c) std::swap(a[col * m + c], a[pivot * m + c]);
      det = -det;
    }
    const double p = a[col * m + col];
    det *= p;
    for (int64_t r = col + 1; r < m; ++r) {
      const double factor = a[r * m + col] / p;
      for (int64_t c = col + 1; c < m; ++c) a[r * m + c] -= factor * a[col * m + c];
    }
  }
  return det;
}

}  // namespace

// Det: each matrix of [..., M, M] eliminated in double precision.
ReferenceFn make_reference_det(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const int64_t m = x.shape.back();
  const int64_t matrices = graph.type_of(node.outputs[0]).elements();
  return visit_dtype(x.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
        const T* src = in[0]->data_as<T>();
        T* det = out[0]->data_as<T>();
        std::vector<double> a(static_cast<size_t>(m * m));
        for (int64_t i = 0; i < matrices; ++i) {
          for (int64_t e = 0; e < m * m; ++e) a[e] = static_cast<double>(src[i * m * m + e]);
          det[i] = static_cast<T>(lu_determinant(a, m));
        }
      };
    } else {
      return nullptr;  // the importer admits f32 and f64 only
    }
  });
}

}  // namespace nee
