#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/activations.h"
#include "core/matmul_weight_layout.h"
#include "core/matmul_workload.h"
#include "core/workload.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/parallel_ranges.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

Tensor transposed_2d(const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  Tensor out(DType::f32, {cols, rows});
  const float* src = t.data_as<float>();
  float* dst = out.data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
  return out;
}

// out = act(alpha * op(A) x op(B) + beta * C) (act: none, Relu or GELU) with ONNX MatMul batch broadcasting and
// 1-D operands promoted as numpy does. The loop order i, k, j keeps the innermost loop
// contiguous in B and out, so it vectorizes.
// B [ceil(N / block), K, block] (panels of block columns, the last one's lanes past N
// padding) as the [K, N] matrix it holds.
Tensor unpacked_panels(const Tensor& panels, const MatmulAttrs& attrs) {
  const int64_t block = attrs.b_block, count = panels.shape()[0], k = panels.shape()[1];
  const int64_t n = attrs.b_columns != 0 ? attrs.b_columns : count * block;
  Tensor out(DType::f32, {k, n});
  const float* src = panels.data_as<float>();
  float* dst = out.data_as<float>();
  for (int64_t p = 0; p < count; ++p) {
    const int64_t lanes = std::min(block, n - p * block);
    for (int64_t r = 0; r < k; ++r) std::copy_n(src + (p * k + r) * block, lanes, dst + r * n + p * block);
  }
  return out;
}

// The product's epilogue after its sums: beta * C broadcast to `shape` (the output's, with
// batch dims), then Relu or GELU.
void add_bias_and_activate(const Tensor* c, const MatmulAttrs& attrs, const std::vector<int64_t>& shape, Tensor& out) {
  float* po = out.data_as<float>();
  if (c) {
    const float* pc = c->data_as<float>();
    const float beta = static_cast<float>(attrs.beta);
    for_each_broadcast(shape, shape, c->shape(), [&](int64_t o, int64_t, int64_t ic) { po[o] += beta * pc[ic]; });
  }
  if (attrs.relu) {
    for (int64_t i = 0; i < out.elements(); ++i) po[i] = std::max(po[i], 0.0f);
  }
  if (attrs.gelu) {
    for (int64_t i = 0; i < out.elements(); ++i) po[i] = gelu(po[i]);
  }
}

void matmul_f32(const Tensor& a_in, const Tensor& b_in, const Tensor* c, const MatmulAttrs& attrs,
                Tensor& out) {
  const Tensor a = attrs.trans_a ? transposed_2d(a_in) : a_in;
  const Tensor b = attrs.b_block != 0 ? unpacked_panels(b_in, attrs)
                   : attrs.trans_b    ? transposed_2d(b_in)
                                      : b_in;
  std::vector<int64_t> sa = a.shape(), sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const std::vector<int64_t> batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  const std::vector<int64_t> batch = broadcast_shapes(batch_a, batch_b);

  const float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  float* po = out.data_as<float>();
  const float alpha = static_cast<float>(attrs.alpha);
  std::fill(po, po + out.elements(), 0.0f);
  struct BatchOffsets {
    int64_t out, a, b;
  };
  std::vector<BatchOffsets> batches;
  for_each_broadcast(batch, batch_a, batch_b,
                     [&](int64_t bo, int64_t ba, int64_t bb) { batches.push_back({bo, ba, bb}); });
  const auto compute_rows = [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const BatchOffsets& offsets = batches[static_cast<size_t>(r / m)];
      const int64_t i = r % m;
      const float* __restrict__ a_row = pa + (offsets.a * m + i) * k;
      const float* __restrict__ b_mat = pb + offsets.b * k * n;
      float* __restrict__ o_row = po + (offsets.out * m + i) * n;
      for (int64_t p = 0; p < k; ++p) {
        const float scaled = alpha * a_row[p];
        const float* __restrict__ b_row = b_mat + p * n;
        for (int64_t j = 0; j < n; ++j) o_row[j] += scaled * b_row[j];
      }
    }
  };
  // Output rows are independent and each is summed in the same order whoever computes
  // it, so large products are shared among the cores, a thread per core with 2^20 or
  // more multiply-adds each: on one core the 4096-cubed product took 31 s, and
  // nee-measure checks every candidate of a GPU batch against it.
  const int64_t rows = static_cast<int64_t>(batches.size()) * m;
  run_in_parallel(rows, workers_for(rows * n * k, int64_t{1} << 20, rows), compute_rows);
  std::vector<int64_t> full = batch;
  full.insert(full.end(), {m, n});
  add_bias_and_activate(c, attrs, full, out);
}

// B quantized in panels (attrs.b_bits) as the f32 [K, N] matrix it holds.
Tensor dequantized_panels(const Tensor& panels, const Tensor& scales, const MatmulAttrs& attrs) {
  const std::vector<int64_t> b = matmul_logical_b_shape(panels.shape(), attrs);
  Tensor out(DType::f32, b);
  dequantize_panels(panels.data_as<uint8_t>(), scales.data_as<float>(), attrs, b[0], b[1], out.data_as<float>());
  return out;
}

// An integer product (attrs.a_bits) as its kernel computes it: A quantized, each sum of
// bytes exact, less a_zero times the column sum (as the kernel reads it, cast to an
// integer), then f32 times the column's multiplier, alpha and the epilogue. A is
// [.., M, K] and B one matrix, so A's rows are the output's.
void integer_matmul(const std::vector<const Tensor*>& in, const Tensor* c, const MatmulAttrs& attrs, Tensor& out) {
  const float* a = in[0]->data_as<float>();
  const int8_t* panels = in[1]->data_as<int8_t>();
  const float* scales = in[2]->data_as<float>();
  const float scale = std::max(in[3]->data_as<float>()[0], std::numeric_limits<float>::min());
  const int zero = in[4]->data_as<uint8_t>()[0];
  const std::vector<int64_t> b_shape = matmul_logical_b_shape(in[1]->shape(), attrs);
  const int64_t k = b_shape[0], n = b_shape[1], block = attrs.b_block, rows = in[0]->elements() / k;
  const float alpha = static_cast<float>(attrs.alpha);
  float* po = out.data_as<float>();
  const auto compute_rows = [&](int64_t first, int64_t last) {
    std::vector<int32_t> q(static_cast<size_t>(k));
    for (int64_t r = first; r < last; ++r) {
      for (int64_t i = 0; i < k; ++i) {
        const float v = std::nearbyint(a[r * k + i] / scale) + static_cast<float>(zero);
        q[i] = static_cast<int32_t>(std::clamp(v, 0.0f, 255.0f));
      }
      for (int64_t col = 0; col < n; ++col) {
        const int64_t panel = col / block, lane = col % block;
        const int8_t* column = panels + (panel * (k / 4) * block + lane) * 4;
        int32_t sum = 0;
        for (int64_t i = 0; i < k; ++i) sum += q[i] * column[(i / 4) * block * 4 + i % 4];
        const int32_t column_sum = static_cast<int32_t>(scales[(panel * 2 + 1) * block + lane]);
        float value = static_cast<float>(sum - zero * column_sum) * scales[panel * 2 * block + lane];
        if (alpha != 1.0f) value *= alpha;
        po[r * n + col] = value;
      }
    }
  };
  run_in_parallel(rows, workers_for(rows * n * k, int64_t{1} << 20, rows), compute_rows);
  add_bias_and_activate(c, attrs, out.shape(), out);
}

bool all_f32(const Graph& graph, const Node& node) {
  for (const std::string& in : node.inputs) {
    if (!in.empty() && graph.type_of(in).dtype != DType::f32) return false;
  }
  return true;
}

ReferenceFn matmul_kernel(const MatmulAttrs& attrs) {
  return [attrs](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const size_t bias_input = matmul_bias_input(attrs);
    const Tensor* c = in.size() > bias_input ? in[bias_input] : nullptr;
    if (attrs.a_bits != 0) return integer_matmul(in, c, attrs, *out[0]);
    if (attrs.b_bits == 0) return matmul_f32(*in[0], *in[1], c, attrs, *out[0]);
    MatmulAttrs dequantized = attrs;
    dequantized.b_block = dequantized.b_columns = dequantized.b_bits = dequantized.b_group = 0;
    matmul_f32(*in[0], dequantized_panels(*in[1], *in[2], attrs), c, dequantized, *out[0]);
  };
}

}  // namespace

ReferenceFn make_reference_matmul(const Graph& graph, const Node& node) {
  if (!all_f32(graph, node)) return nullptr;
  return matmul_kernel(MatmulAttrs{});
}

ReferenceFn make_reference_gemm(const Graph& graph, const Node& node) {
  if (!all_f32(graph, node)) return nullptr;
  MatmulAttrs attrs;
  attrs.trans_a = node.attrs.get_int("transA", 0) != 0;
  attrs.trans_b = node.attrs.get_int("transB", 0) != 0;
  attrs.alpha = node.attrs.get_float("alpha", 1.0f);
  attrs.beta = node.attrs.get_float("beta", 1.0f);
  return matmul_kernel(attrs);
}

ReferenceFn make_reference_nee_matmul(const Graph& graph, const Node& node) {
  MatmulAttrs attrs;
  attrs.b_bits = node.attrs.get_int("b_bits", 0);
  attrs.b_group = node.attrs.get_int("b_group", 0);
  attrs.a_bits = node.attrs.get_int("a_bits", 0);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const DType wanted = matmul_operand_dtype(attrs, i);
    if (!node.inputs[i].empty() && graph.type_of(node.inputs[i]).dtype != wanted) return nullptr;
  }
  attrs.trans_a = node.attrs.get_int("trans_a", 0) != 0;
  attrs.trans_b = node.attrs.get_int("trans_b", 0) != 0;
  attrs.alpha = node.attrs.get_float("alpha", 1.0f);
  attrs.beta = node.attrs.get_float("beta", 1.0f);
  attrs.relu = node.attrs.get_int("relu", 0) != 0;
  attrs.gelu = node.attrs.get_int("gelu", 0) != 0;
  attrs.b_block = node.attrs.get_int("b_block", 0);
  attrs.b_columns = node.attrs.get_int("b_columns", 0);
  return matmul_kernel(attrs);
}

ReferenceFn make_matmul_reference(const Workload& w) { return matmul_kernel(matmul_attrs(w)); }

}  // namespace nee
