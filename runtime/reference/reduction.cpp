#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "runtime/reference/axis_slices.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/row_extremes.h"

namespace nee {

namespace {

enum class Reduction { sum, mean, max, min, prod, l1, l2, sum_square, log_sum, log_sum_exp };

// The input's shape with every reduced dim set to 1: read as broadcast to the input's
// shape, it maps each input element to its output element.
std::vector<int64_t> kept_shape(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept = shape;
  for (int64_t axis : axes) kept[axis] = 1;
  return kept;
}

// Sums and products accumulate in double (f32) or int64 (integers); max and min in the
// element type. L1, L2, SumSquare, LogSum and LogSumExp sum |x|, x^2, x^2, x, exp(x) and
// finish with nothing, sqrt, nothing, log and log.
template <typename T, Reduction R>
ReferenceFn reduce_kernel(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& kept) {
  using Acc = std::conditional_t<R == Reduction::max || R == Reduction::min, T,
                                 std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;
  // The elements each output sums when the reduced dims are the trailing ones, else 0.
  size_t first_reduced = in_shape.size();
  while (first_reduced > 0 && kept[first_reduced - 1] == 1) --first_reduced;
  int64_t trailing = first_reduced < in_shape.size() ? 1 : 0;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (d < first_reduced && kept[d] != in_shape[d]) trailing = 0;
    if (d >= first_reduced) trailing *= in_shape[d];
  }
  return [in_shape, kept, trailing](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    const int64_t count = out[0]->elements();
    if constexpr (std::is_same_v<T, float> && (R == Reduction::max || R == Reduction::min)) {
      if (trailing > 0) {
        (R == Reduction::max ? row_maxima : row_minima)(x, count, trailing, y);
        return;
      }
    }
    Acc start{0};
    if constexpr (R == Reduction::prod) {
      start = Acc{1};
    } else if constexpr (R == Reduction::max) {
      start = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::lowest();
    } else if constexpr (R == Reduction::min) {
      start = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::max();
    }
    std::vector<Acc> acc(static_cast<size_t>(count), start);
    // Inlined by force: -Os called it once a term otherwise.
    const auto add = [&](int64_t i, Acc& a) __attribute__((always_inline)) {
      if constexpr (R == Reduction::max) {
        if (x[i] > a || std::isnan(static_cast<double>(x[i]))) a = x[i];
      } else if constexpr (R == Reduction::min) {
        if (x[i] < a || std::isnan(static_cast<double>(x[i]))) a = x[i];
      } else if constexpr (R == Reduction::prod) {
        a *= static_cast<Acc>(x[i]);
      } else if constexpr (R == Reduction::l1) {
        const Acc v = static_cast<Acc>(x[i]);
        a += v < Acc{0} ? -v : v;
      } else if constexpr (R == Reduction::l2 || R == Reduction::sum_square) {
        a += static_cast<Acc>(x[i]) * static_cast<Acc>(x[i]);
      } else if constexpr (R == Reduction::log_sum_exp) {
        a += static_cast<Acc>(std::exp(static_cast<double>(x[i])));
      } else {
        a += static_cast<Acc>(x[i]);
      }
    };
    constexpr bool additive = R != Reduction::max && R != Reduction::min && R != Reduction::prod;
    if (trailing > 0) {
      // Each output reads one contiguous run, summed in four partial sums so that the adds
      // do not wait on each other: an RMSNorm's mean of squares over [64, 256] took 47-51
      // us with one running sum.
      for (int64_t o = 0; o < count; ++o) {
        const int64_t base = o * trailing;
        if constexpr (additive) {
          // Four locals, not an array, which -Os kept in memory (a store and a load a term).
          Acc p0{}, p1{}, p2{}, p3{};
          int64_t k = 0;
          for (; k + 4 <= trailing; k += 4) {
            add(base + k, p0);
            add(base + k + 1, p1);
            add(base + k + 2, p2);
            add(base + k + 3, p3);
          }
          for (; k < trailing; ++k) add(base + k, p0);
          acc[o] = (p0 + p1) + (p2 + p3);
        } else {
          for (int64_t k = 0; k < trailing; ++k) add(base + k, acc[o]);
        }
      }
    } else {
      for_each_broadcast(in_shape, in_shape, kept, [&](int64_t i, int64_t, int64_t o) { add(i, acc[o]); });
    }
    int64_t in_elements = 1, out_elements = 1;
    for (int64_t d : in_shape) in_elements *= d;
    for (int64_t d : kept) out_elements *= d;
    const int64_t reduced = out_elements == 0 ? 0 : in_elements / out_elements;
    for (int64_t o = 0; o < count; ++o) {
      if constexpr (R == Reduction::l2) {
        y[o] = static_cast<T>(std::sqrt(static_cast<double>(acc[o])));
      } else if constexpr (R == Reduction::log_sum || R == Reduction::log_sum_exp) {
        y[o] = static_cast<T>(std::log(static_cast<double>(acc[o])));
      } else {
        y[o] = static_cast<T>(R == Reduction::mean && reduced > 0 ? acc[o] / static_cast<Acc>(reduced) : acc[o]);
      }
    }
  };
}

template <Reduction R>
ReferenceFn make_reduce(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> kept = kept_shape(type.shape, node.attrs.get_ints("axes"));
  if constexpr (R == Reduction::max || R == Reduction::min) {
    // Booleans (opset 20) are bytes 0 and 1: the uint8 maximum is "any" and the minimum
    // "all", but for an empty set's 255, which is true.
    if (type.dtype == DType::boolean) {
      return [bytes = reduce_kernel<uint8_t, R>(type.shape, kept)](const std::vector<const Tensor*>& in,
                                                                   const std::vector<Tensor*>& out) {
        bytes(in, out);
        uint8_t* y = out[0]->data_as<uint8_t>();
        for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = y[i] != 0;
      };
    }
  }
  return visit_numeric_dtype(type.dtype, [&](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return reduce_kernel<T, R>(type.shape, kept);
  });
}

}  // namespace

ReferenceFn make_reference_reduce_sum(const Graph& g, const Node& n) { return make_reduce<Reduction::sum>(g, n); }
ReferenceFn make_reference_reduce_mean(const Graph& g, const Node& n) { return make_reduce<Reduction::mean>(g, n); }
ReferenceFn make_reference_reduce_max(const Graph& g, const Node& n) { return make_reduce<Reduction::max>(g, n); }
ReferenceFn make_reference_reduce_min(const Graph& g, const Node& n) { return make_reduce<Reduction::min>(g, n); }
ReferenceFn make_reference_reduce_prod(const Graph& g, const Node& n) { return make_reduce<Reduction::prod>(g, n); }
ReferenceFn make_reference_reduce_l1(const Graph& g, const Node& n) { return make_reduce<Reduction::l1>(g, n); }
ReferenceFn make_reference_reduce_l2(const Graph& g, const Node& n) { return make_reduce<Reduction::l2>(g, n); }
ReferenceFn make_reference_reduce_sum_square(const Graph& g, const Node& n) {
  return make_reduce<Reduction::sum_square>(g, n);
}
ReferenceFn make_reference_reduce_log_sum(const Graph& g, const Node& n) {
  return make_reduce<Reduction::log_sum>(g, n);
}
ReferenceFn make_reference_reduce_log_sum_exp(const Graph& g, const Node& n) {
  return make_reduce<Reduction::log_sum_exp>(g, n);
}

namespace {

// The index of the maximum (Better: std::greater) or minimum (std::less) along the stored
// non-negative axis: the first such index, or the last with select_last_index=1.
template <template <typename> class Better>
ReferenceFn make_arg_extreme(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const bool last = node.attrs.get_int("select_last_index") != 0;
  const AxisSlices slices = axis_slices(type.shape, axis);
  const int64_t outer = slices.outer, n = slices.n, inner = slices.inner;
  return visit_numeric_dtype(type.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Better<T> better;
      const T* x = in[0]->data_as<T>();
      int64_t* y = out[0]->data_as<int64_t>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* slice = x + o * n * inner + i;
          int64_t best = 0;
          for (int64_t j = 1; j < n; ++j) {
            if (better(slice[j * inner], slice[best * inner]) || (last && slice[j * inner] == slice[best * inner])) {
              best = j;
            }
          }
          y[o * inner + i] = best;
        }
      }
    };
  });
}

}  // namespace

ReferenceFn make_reference_argmax(const Graph& g, const Node& n) { return make_arg_extreme<std::greater>(g, n); }
ReferenceFn make_reference_argmin(const Graph& g, const Node& n) { return make_arg_extreme<std::less>(g, n); }

namespace {

// CumSum's and CumProd's kernel for elements of type T.
template <typename T>
ReferenceFn cumulative_kernel(const AxisSlices& s, bool exclusive, bool reverse, bool product) {
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        T running = product ? T{1} : T{0};
        for (int64_t step = 0; step < s.n; ++step) {
          const int64_t j = reverse ? s.n - 1 - step : step;
          const int64_t at = (o * s.n + j) * s.inner + i;
          if (exclusive) y[at] = running;
          running = product ? static_cast<T>(running * x[at]) : static_cast<T>(running + x[at]);
          if (!exclusive) y[at] = running;
        }
      }
    }
  };
}

}  // namespace

// CumSum and CumProd along the stored axis: y[j] = x[0] + ... + x[j] (or the product;
// x[j] left out when exclusive, which starts from 0 or 1), from the other end when
// reverse; in the element type, as the spec's T. Only the types the importer admits get a
// kernel (libnee's size is bounded).
ReferenceFn make_reference_cumulative(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const AxisSlices s = axis_slices(type.shape, static_cast<size_t>(node.attrs.get_int("axis")));
  const bool exclusive = node.attrs.get_int("exclusive") != 0, reverse = node.attrs.get_int("reverse") != 0;
  const bool product = node.op == "CumProd";
  switch (type.dtype) {
    case DType::f32: return cumulative_kernel<float>(s, exclusive, reverse, product);
    case DType::f64: return cumulative_kernel<double>(s, exclusive, reverse, product);
    case DType::i32: return cumulative_kernel<int32_t>(s, exclusive, reverse, product);
    case DType::i64: return cumulative_kernel<int64_t>(s, exclusive, reverse, product);
    case DType::u32: return cumulative_kernel<uint32_t>(s, exclusive, reverse, product);
    case DType::u64: return cumulative_kernel<uint64_t>(s, exclusive, reverse, product);
    default: return nullptr;
  }
}

}  // namespace nee
