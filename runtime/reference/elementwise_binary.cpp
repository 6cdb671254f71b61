#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "core/error.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

template <typename T, typename Op>
ReferenceFn binary_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* a = in[0]->data_as<T>();
    const T* b = in[1]->data_as<T>();
    T* o = out[0]->data_as<T>();
    for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(),
                       [&](int64_t i, int64_t ia, int64_t ib) { o[i] = static_cast<T>(op(a[ia], b[ib])); });
  };
}

// Arithmetic on every numeric dtype; bool stays unbound. Integer results wrap.
template <template <typename> class Op>
ReferenceFn make_binary(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return binary_kernel<T>(Op<T>{});
    }
  });
}

template <typename T> struct Divides {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) throw Error("integer division by zero in Div");
    }
    return static_cast<T>(a / b);
  }
};

// NaN in any operand gives NaN, as in numpy's minimum and maximum.
template <typename T> struct Minimum {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};
template <typename T> struct Maximum {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b)) return b;
    }
    return b > a ? b : a;
  }
};

// Out = op(...op(op(in0, in1), in2)..., inK), every input broadcast to the output.
template <typename T, typename Op>
ReferenceFn variadic_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    T* o = out[0]->data_as<T>();
    const std::vector<int64_t>& shape = out[0]->shape();
    const T* first = in[0]->data_as<T>();
    for_each_broadcast(shape, shape, in[0]->shape(), [&](int64_t i, int64_t, int64_t ia) { o[i] = first[ia]; });
    for (size_t k = 1; k < in.size(); ++k) {
      const T* x = in[k]->data_as<T>();
      for_each_broadcast(shape, shape, in[k]->shape(), [&](int64_t i, int64_t, int64_t ix) { o[i] = op(o[i], x[ix]); });
    }
  };
}

template <template <typename> class Op>
ReferenceFn make_variadic(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return variadic_kernel<T>(Op<T>{});
    }
  });
}

// Mod with fmod 0: the remainder takes the divisor's sign, as Python's % does (floats
// from opset 28: a zero remainder is a zero of the divisor's sign, an infinite divisor
// returns a finite dividend of its sign and itself otherwise, as opset 28 lists). With
// fmod 1: C's fmod and %, the remainder taking the dividend's sign.
template <typename T>
struct Remainder {
  bool c_style;
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (c_style) return r;
      if (r == T{0}) return std::copysign(T{0}, b);
      return std::signbit(r) != std::signbit(b) ? r + b : r;
    } else {
      if (b == 0) throw Error("integer modulus by zero in Mod");
      T r = static_cast<T>(a % b);
      if (!c_style && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    }
  }
};

// An element of a tensor of type E read as a double: Pow reads its exponent through one,
// chosen per node, so that it has a kernel per base dtype rather than one per pair of
// dtypes (100 pairs took 117 KB of libnee's code).
using ElementAsDouble = double (*)(const void* data, int64_t index);
template <typename E> double element_as_double(const void* data, int64_t index) {
  return static_cast<double>(static_cast<const E*>(data)[index]);
}

}  // namespace

ReferenceFn make_reference_add(const Graph& g, const Node& n) { return make_binary<std::plus>(g, n); }
ReferenceFn make_reference_sub(const Graph& g, const Node& n) { return make_binary<std::minus>(g, n); }
ReferenceFn make_reference_mul(const Graph& g, const Node& n) { return make_binary<std::multiplies>(g, n); }
ReferenceFn make_reference_div(const Graph& g, const Node& n) { return make_binary<Divides>(g, n); }
ReferenceFn make_reference_min(const Graph& g, const Node& n) { return make_variadic<Minimum>(g, n); }
ReferenceFn make_reference_max(const Graph& g, const Node& n) { return make_variadic<Maximum>(g, n); }
ReferenceFn make_reference_sum(const Graph& g, const Node& n) { return make_variadic<std::plus>(g, n); }

// Computed in double and converted to the base's dtype, so integer powers are exact
// while they fit in 53 bits.
ReferenceFn make_reference_pow(const Graph& graph, const Node& node) {
  const ElementAsDouble exponent_at =
      visit_dtype(graph.type_of(node.inputs[1]).dtype, [](auto exponent_tag) -> ElementAsDouble {
        using E = decltype(exponent_tag);
        if constexpr (std::is_same_v<E, bool>) {
          return nullptr;
        } else {
          return &element_as_double<E>;
        }
      });
  if (!exponent_at) return nullptr;
  return visit_numeric_dtype(graph.type_of(node.inputs[0]).dtype, [exponent_at](auto base_tag) -> ReferenceFn {
    using T = decltype(base_tag);
    return [exponent_at](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const T* base = in[0]->data_as<T>();
      const void* exponent = in[1]->data();
      T* o = out[0]->data_as<T>();
      for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(), [&](int64_t i, int64_t ib, int64_t ie) {
        o[i] = static_cast<T>(std::pow(static_cast<double>(base[ib]), exponent_at(exponent, ie)));
      });
    };
  });
}

ReferenceFn make_reference_mod(const Graph& graph, const Node& node) {
  const bool c_style = node.attrs.get_int("fmod") != 0;
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [c_style](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return binary_kernel<T>(Remainder<T>{c_style});
    }
  });
}

// PRelu: slope * x where x < 0, the slope broadcast to X.
ReferenceFn make_reference_prelu(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return binary_kernel<T>([](T x, T slope) { return x < T{0} ? static_cast<T>(slope * x) : x; });
    }
  });
}

namespace {

// BitShift on the bits of an integer of U's width, signed or not: a signed right shift is
// arithmetic, computed on the complement where the sign bit is set; a left shift drops
// the bits it moves past the width. A shift by a negative count or by the width or more
// gives what the sign fill alone gives: all ones for a right shift of a negative signed
// value, 0 otherwise (opset 28; both are C++ undefined behaviour). One kernel per width
// serves both signs (libnee's size is bounded).
template <typename U>
ReferenceFn shift_kernel(bool left, bool is_signed) {
  constexpr U kSignBit = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
  return binary_kernel<U>([left, is_signed](U x, U bits) -> U {
    const bool negative = is_signed && (x & kSignBit) != 0;
    const bool count_negative = is_signed && (bits & kSignBit) != 0;
    if (count_negative || bits >= sizeof(U) * 8) return !left && negative ? static_cast<U>(~U{0}) : U{0};
    if (left) return static_cast<U>(x << bits);
    return negative ? static_cast<U>(~(static_cast<U>(~x) >> bits)) : static_cast<U>(x >> bits);
  });
}

}  // namespace

ReferenceFn make_reference_bit_shift(const Graph& graph, const Node& node) {
  const bool left = node.attrs.get_string("direction") == "LEFT";
  const DType dtype = graph.type_of(node.inputs[0]).dtype;
  const bool is_signed = dtype == DType::i8 || dtype == DType::i16 || dtype == DType::i32 || dtype == DType::i64;
  switch (dtype_size(dtype)) {
    case 1: return shift_kernel<uint8_t>(left, is_signed);
    case 2: return shift_kernel<uint16_t>(left, is_signed);
    case 4: return shift_kernel<uint32_t>(left, is_signed);
    default: return shift_kernel<uint64_t>(left, is_signed);
  }
}

// Mean: the variadic sum over the input count.
ReferenceFn make_reference_mean(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  ReferenceFn sum = variadic_kernel<float>(std::plus<float>{});
  return [sum](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    sum(in, out);
    float* o = out[0]->data_as<float>();
    const float count = static_cast<float>(in.size());
    for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) o[i] /= count;
  };
}

}  // namespace nee
