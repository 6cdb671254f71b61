#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/reference/axis_slices.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Which scale and zero point element i of X uses: element 0 for per-tensor parameters,
// the index of i along the stored axis per axis, and with blocks (`block` > 0) the
// element of the same position but for its block's index along the axis.
struct ParameterIndex {
  int64_t count, n, inner, block = 0;
  int64_t operator()(int64_t i) const {
    if (block > 0) {
      const int64_t blocks = (n + block - 1) / block;
      return (i / (n * inner) * blocks + (i / inner) % n / block) * inner + i % inner;
    }
    return count == 1 ? 0 : (i / inner) % n;
  }
};

ParameterIndex parameter_index(const Graph& graph, const Node& node) {
  const std::vector<int64_t>& shape = graph.type_of(node.inputs[0]).shape;
  const int64_t count = graph.type_of(node.inputs[1]).elements();
  const int64_t block = node.attrs.get_int("block_size", 0);
  if (shape.empty() || (count == 1 && block == 0)) return {1, 1, 1};
  const AxisSlices s = axis_slices(shape, static_cast<size_t>(node.attrs.get_int("axis")));
  return {count, s.n, s.inner, block};
}

// round(value) half to even (nearbyint in the default rounding mode), saturated to Q.
template <typename Q>
Q saturate_round(float value) {
  const float r = std::nearbyint(value);
  return static_cast<Q>(std::clamp(r, static_cast<float>(std::numeric_limits<Q>::lowest()),
                                   static_cast<float>(std::numeric_limits<Q>::max())));
}

}  // namespace

// QuantizeLinear: y = saturate(round(x / scale) + zero_point).
ReferenceFn make_reference_quantize_linear(const Graph& graph, const Node& node) {
  const ParameterIndex at = parameter_index(graph, node);
  const DType from = graph.type_of(node.inputs[0]).dtype;
  return visit_numeric_dtype(graph.type_of(node.outputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using Q = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const float* scale = in[1]->data_as<float>();
      const Q* zero = in.size() > 2 && in[2] ? in[2]->data_as<Q>() : nullptr;
      Q* y = out[0]->data_as<Q>();
      for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) {
        const float x = from == DType::f32 ? in[0]->data_as<float>()[i] : static_cast<float>(in[0]->data_as<int32_t>()[i]);
        const int64_t p = at(i);
        y[i] = saturate_round<Q>(std::nearbyint(x / scale[p]) + (zero ? static_cast<float>(zero[p]) : 0.0f));
      }
    };
  });
}

// DequantizeLinear: y = (x - zero_point) * scale.
ReferenceFn make_reference_dequantize_linear(const Graph& graph, const Node& node) {
  const ParameterIndex at = parameter_index(graph, node);
  return visit_numeric_dtype(graph.type_of(node.inputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using Q = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Q* x = in[0]->data_as<Q>();
      const float* scale = in[1]->data_as<float>();
      const Q* zero = in.size() > 2 && in[2] ? in[2]->data_as<Q>() : nullptr;
      float* y = out[0]->data_as<float>();
      for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) {
        const int64_t p = at(i);
        y[i] = static_cast<float>(static_cast<int64_t>(x[i]) - (zero ? static_cast<int64_t>(zero[p]) : 0)) * scale[p];
      }
    };
  });
}

namespace {

// Reads element i of an integer tensor (uint8 or int8) as int32.
int32_t integer_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::u8 ? t.data_as<uint8_t>()[i] : t.data_as<int8_t>()[i];
}

// The zero point of row (A) or column (B) `index`: one value, one per index, or none (0).
int32_t zero_point_at(const Tensor* zp, int64_t index) {
  if (!zp) return 0;
  return integer_at(*zp, zp->elements() == 1 ? 0 : index);
}

// acc[batch][m][n] = sum_k (A - a_zp) (B - b_zp), A [..., M, K] and B [..., K, N] with
// broadcast batch dims: the integer product MatMulInteger returns and QLinearMatMul scales.
struct IntegerMatmul {
  std::vector<int64_t> batch_a_offsets, batch_b_offsets;
  int64_t m, k, n;

  IntegerMatmul(const std::vector<int64_t>& a, const std::vector<int64_t>& b)
      : m(a[a.size() - 2]), k(a.back()), n(b.back()) {
    const std::vector<int64_t> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
    for_each_broadcast(broadcast_shapes(batch_a, batch_b), batch_a, batch_b, [&](int64_t, int64_t ia, int64_t ib) {
      batch_a_offsets.push_back(ia * m * k);
      batch_b_offsets.push_back(ib * k * n);
    });
  }

  template <typename Out>
  void operator()(const Tensor& a, const Tensor* a_zp, const Tensor& b, const Tensor* b_zp, Out out) const {
    for (size_t batch = 0; batch < batch_a_offsets.size(); ++batch) {
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          int32_t acc = 0;
          for (int64_t i = 0; i < k; ++i) {
            acc += (integer_at(a, batch_a_offsets[batch] + r * k + i) - zero_point_at(a_zp, r)) *
                   (integer_at(b, batch_b_offsets[batch] + i * n + c) - zero_point_at(b_zp, c));
          }
          out((static_cast<int64_t>(batch) * m + r) * n + c, acc);
        }
      }
    }
  }
};

}  // namespace

ReferenceFn make_reference_matmul_integer(const Graph& graph, const Node& node) {
  const IntegerMatmul product(graph.type_of(node.inputs[0]).shape, graph.type_of(node.inputs[1]).shape);
  return [product](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    int32_t* y = out[0]->data_as<int32_t>();
    product(*in[0], in.size() > 2 ? in[2] : nullptr, *in[1], in.size() > 3 ? in[3] : nullptr,
            [y](int64_t i, int32_t acc) { y[i] = acc; });
  };
}

ReferenceFn make_reference_qlinear_matmul(const Graph& graph, const Node& node) {
  const IntegerMatmul product(graph.type_of(node.inputs[0]).shape, graph.type_of(node.inputs[3]).shape);
  return visit_numeric_dtype(graph.type_of(node.outputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using Q = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const float multiplier = *in[1]->data_as<float>() * *in[4]->data_as<float>() / *in[6]->data_as<float>();
      const float y_zero = static_cast<float>(zero_point_at(in[7], 0));
      Q* y = out[0]->data_as<Q>();
      product(*in[0], in[2], *in[3], in[5], [&](int64_t i, int32_t acc) {
        y[i] = saturate_round<Q>(std::nearbyint(static_cast<float>(acc) * multiplier) + y_zero);
      });
    };
  });
}

}  // namespace nee
