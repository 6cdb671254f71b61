// Unique (opset 11): the distinct elements or slices of a tensor, where each first
// occurs, each input's position among them, and how often each occurs.
#include "runtime/reference/unique.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <type_traits>

#include "runtime/reference/axis_slices.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// -1, 0 or 1 as a sorts before, with or after b; NaN after every number, equal to NaN.
template <typename T>
int compare_elements(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) == std::isnan(b) ? 0 : std::isnan(a) ? 1 : -1;
  }
  return a < b ? -1 : b < a ? 1 : 0;
}

AxisSlices slices_of(const TensorType& type, int64_t axis) {
  if (axis < 0) return AxisSlices{1, type.elements(), 1};
  return axis_slices(type.shape, static_cast<size_t>(axis));
}

}  // namespace

UniqueSlices unique_slices(const Tensor& x, int64_t axis, bool sorted) {
  const AxisSlices s = slices_of(x.type(), axis);
  // Slices compared element by element, in the order numpy's unique compares them.
  const auto compare = visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = x.data_as<T>();
    return std::function<int(int64_t, int64_t)>([data, s](int64_t a, int64_t b) {
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t i = 0; i < s.inner; ++i) {
          const int c = compare_elements(data[(o * s.n + a) * s.inner + i], data[(o * s.n + b) * s.inner + i]);
          if (c != 0) return c;
        }
      }
      return 0;
    });
  });
  // A stable sort keeps equal slices in input order, so each group starts at its first.
  std::vector<int64_t> order(static_cast<size_t>(s.n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  std::vector<int64_t> group_of(order.size());  // per slice, its group in ascending order
  std::vector<int64_t> first, counts;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    group_of[static_cast<size_t>(order[k])] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  // Output position of each ascending group: itself, or its rank by first occurrence.
  std::vector<int64_t> position(first.size());
  std::iota(position.begin(), position.end(), 0);
  if (!sorted) {
    std::vector<int64_t> by_first(first.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (size_t k = 0; k < by_first.size(); ++k) position[static_cast<size_t>(by_first[k])] = static_cast<int64_t>(k);
  }
  UniqueSlices result;
  result.first.resize(first.size());
  result.counts.resize(first.size());
  for (size_t g = 0; g < first.size(); ++g) {
    result.first[static_cast<size_t>(position[g])] = first[g];
    result.counts[static_cast<size_t>(position[g])] = counts[g];
  }
  result.inverse.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) result.inverse[i] = position[static_cast<size_t>(group_of[i])];
  return result;
}

// The importer stores `axis` (non-negative, or -1 for the flattened input) and `sorted`;
// outputs are Y, indices, inverse_indices and counts, any of them omitted (null).
ReferenceFn make_reference_unique(const Graph& graph, const Node& node) {
  const TensorType type = graph.type_of(node.inputs[0]);
  const int64_t axis = node.attrs.get_int("axis");
  const bool sorted = node.attrs.get_int("sorted") != 0;
  const AxisSlices s = slices_of(type, axis);
  const size_t chunk = static_cast<size_t>(s.inner) * dtype_size(type.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const UniqueSlices found = unique_slices(*in[0], axis, sorted);
    const auto output = [&out](size_t i) { return out.size() > i ? out[i] : nullptr; };
    if (Tensor* y = output(0)) {
      const auto* from = static_cast<const uint8_t*>(in[0]->data());
      auto* to = static_cast<uint8_t*>(y->data());
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t k : found.first) {
          std::memcpy(to, from + static_cast<size_t>(o * s.n + k) * chunk, chunk);
          to += chunk;
        }
      }
    }
    const std::vector<int64_t>* lists[] = {&found.first, &found.inverse, &found.counts};
    for (size_t i = 0; i < 3; ++i) {
      if (Tensor* t = output(i + 1)) std::copy(lists[i]->begin(), lists[i]->end(), t->data_as<int64_t>());
    }
  };
}

}  // namespace nee
