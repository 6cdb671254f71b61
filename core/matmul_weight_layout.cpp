#include "core/matmul_weight_layout.h"

#include <algorithm>

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

Workload matmul_runtime_layout(const Workload& w) {
  const MatmulAttrs attrs = matmul_attrs(w);
  const std::vector<int64_t>& b = w.inputs[1].shape;
  if (attrs.b_block != 0 || attrs.trans_b || !matmul_weights_pack(b, true)) return w;
  const TensorType panels{w.inputs[1].dtype, matmul_panel_shape(b)};
  return make_matmul_workload(w.inputs[0], panels, matmul_has_bias(w) ? &w.inputs[2] : nullptr,
                              with_packed_b(attrs, b));
}

}  // namespace nee
