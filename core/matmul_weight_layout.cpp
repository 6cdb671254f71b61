#include "core/matmul_weight_layout.h"

#include <algorithm>
#include <cmath>

namespace nee {

bool matmul_weights_pack(const std::vector<int64_t>& b_shape, bool pad_panels) {
  return b_shape.size() == 2 && (pad_panels || b_shape[1] % kMatmulWeightPanel == 0);
}

std::vector<int64_t> matmul_panel_shape(const std::vector<int64_t>& b_shape) {
  return {(b_shape[1] + kMatmulWeightPanel - 1) / kMatmulWeightPanel, b_shape[0], kMatmulWeightPanel};
}

void pack_matmul_panels(const float* b_data, const std::vector<int64_t>& b_shape, float* out) {
  const int64_t k = b_shape[0], n = b_shape[1];
  constexpr int64_t block = kMatmulWeightPanel;
  const int64_t panels = (n + block - 1) / block;
  std::fill(out + (panels - 1) * k * block, out + panels * k * block, 0.0f);
  for (int64_t row = 0; row < k; ++row) {
    for (int64_t col = 0; col < n; ++col) out[((col / block) * k + row) * block + col % block] = b_data[row * n + col];
  }
}

MatmulAttrs with_packed_b(MatmulAttrs attrs, const std::vector<int64_t>& b_shape) {
  attrs.b_block = kMatmulWeightPanel;
  attrs.b_columns = b_shape[1] % kMatmulWeightPanel == 0 ? 0 : b_shape[1];
  return attrs;
}

std::vector<int64_t> quantized_panel_shape(const QuantizedMatrix& b) {
  return {(b.columns + kMatmulWeightPanel - 1) / kMatmulWeightPanel, b.rows * b.bits / 8, kMatmulWeightPanel};
}

std::vector<int64_t> quantized_scales_shape(const QuantizedMatrix& b) {
  return {(b.columns + kMatmulWeightPanel - 1) / kMatmulWeightPanel, (b.rows + b.group - 1) / b.group, 2,
          kMatmulWeightPanel};
}

void pack_quantized_panels(const QuantizedMatrix& b, uint8_t* panels, float* scales) {
  constexpr int64_t block = kMatmulWeightPanel;
  const std::vector<int64_t> panel_shape = quantized_panel_shape(b), scale_shape = quantized_scales_shape(b);
  const int64_t byte_rows = panel_shape[1], groups = scale_shape[1];
  std::fill_n(panels, panel_shape[0] * byte_rows * block, uint8_t{0});
  std::fill_n(scales, scale_shape[0] * groups * 2 * block, 0.0f);
  for (int64_t row = 0; row < b.rows; ++row) {
    // Two 4-bit rows share a byte, the even one in the low nibble.
    const int64_t byte_row = b.bits == 4 ? row / 2 : row;
    const int shift = b.bits == 4 && row % 2 == 1 ? 4 : 0;
    for (int64_t col = 0; col < b.columns; ++col) {
      const uint8_t q = b.values[row * b.columns + col];
      panels[((col / block) * byte_rows + byte_row) * block + col % block] |= static_cast<uint8_t>(q << shift);
    }
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t col = 0; col < b.columns; ++col) {
      float* lane = scales + ((col / block) * groups + g) * 2 * block + col % block;
      lane[0] = b.scales[g * b.columns + col];
      lane[block] = b.offsets[g * b.columns + col];
    }
  }
}

void dequantize_panels(const uint8_t* panels, const float* scales, const MatmulAttrs& attrs, int64_t k, int64_t n,
                       float* out) {
  const int64_t block = attrs.b_block, byte_rows = k * attrs.b_bits / 8;
  const int64_t groups = (k + attrs.b_group - 1) / attrs.b_group;
  for (int64_t row = 0; row < k; ++row) {
    const int64_t byte_row = attrs.b_bits == 4 ? row / 2 : row;
    const int shift = attrs.b_bits == 4 && row % 2 == 1 ? 4 : 0;
    const uint8_t mask = attrs.b_bits == 4 ? 0x0f : 0xff;
    for (int64_t col = 0; col < n; ++col) {
      const int64_t panel = col / block, lane = col % block;
      const uint8_t q = static_cast<uint8_t>(panels[(panel * byte_rows + byte_row) * block + lane] >> shift) & mask;
      const float* scale = scales + (panel * groups + row / attrs.b_group) * 2 * block + lane;
      out[row * n + col] = std::fma(static_cast<float>(q), scale[0], scale[block]);
    }
  }
}

std::vector<int64_t> integer_panel_shape(int64_t rows, int64_t columns) {
  return {(columns + kMatmulWeightPanel - 1) / kMatmulWeightPanel, rows / 4, kMatmulWeightPanel, 4};
}

std::vector<int64_t> integer_scales_shape(int64_t columns) {
  return {(columns + kMatmulWeightPanel - 1) / kMatmulWeightPanel, 2, kMatmulWeightPanel};
}

void pack_integer_panels(const IntegerMatrix& b, int8_t* panels, float* scales) {
  constexpr int64_t block = kMatmulWeightPanel;
  const std::vector<int64_t> shape = integer_panel_shape(b.rows, b.columns);
  std::fill_n(panels, shape[0] * shape[1] * block * 4, int8_t{0});
  std::fill_n(scales, shape[0] * 2 * block, 0.0f);
  for (int64_t col = 0; col < b.columns; ++col) {
    const int64_t panel = col / block, lane = col % block;
    int64_t sum = 0;
    for (int64_t row = 0; row < b.rows; ++row) {
      const int8_t q = b.values[row * b.columns + col];
      panels[((panel * shape[1] + row / 4) * block + lane) * 4 + row % 4] = q;
      sum += q;
    }
    scales[panel * 2 * block + lane] = b.multipliers[col];
    scales[(panel * 2 + 1) * block + lane] = static_cast<float>(sum);
  }
}

Workload matmul_runtime_layout(const Workload& w) {
  const MatmulAttrs attrs = matmul_attrs(w);
  const std::vector<int64_t>& b = w.inputs[1].shape;
  if (attrs.b_block != 0 || attrs.trans_b || !matmul_weights_pack(b, true)) return w;
  const TensorType panels{w.inputs[1].dtype, matmul_panel_shape(b)};
  return make_matmul_workload(w.inputs[0], panels, matmul_has_bias(w) ? &w.inputs[2] : nullptr,
                              with_packed_b(attrs, b));
}

}  // namespace nee
