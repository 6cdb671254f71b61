#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "runtime/reference/axis_slices.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// TopK along the stored axis: the k largest (or smallest) values of each slice in order,
// equal values by ascending index as the spec says, and their indices. NaN counts as
// larger than every number, as ONNX Runtime orders it.
ReferenceFn make_reference_top_k(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const int64_t k = node.attrs.get_int("k");
  const bool largest = node.attrs.get_int("largest") != 0;
  const AxisSlices slices = axis_slices(type.shape, axis);
  const int64_t outer = slices.outer, n = slices.n, inner = slices.inner;
  return visit_numeric_dtype(type.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const T* x = in[0]->data_as<T>();
      T* values = out[0]->data_as<T>();
      int64_t* indices = out[1] ? out[1]->data_as<int64_t>() : nullptr;
      const auto before = [](T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
        }
        return a > b;
      };
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* slice = x + o * n * inner + i;
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return largest ? before(slice[a * inner], slice[b * inner]) : before(slice[b * inner], slice[a * inner]);
          });
          for (int64_t j = 0; j < k; ++j) {
            const int64_t at = (o * k + j) * inner + i;
            values[at] = slice[order[j] * inner];
            if (indices) indices[at] = order[j];
          }
        }
      }
    };
  });
}

}  // namespace nee
