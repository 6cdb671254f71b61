#include "core/matmul_weight_layout.h"

#include "core/matmul_workload.h"

namespace nee {

bool matmul_weights_fill_panels(const std::vector<int64_t>& b_shape) {
  return b_shape.size() == 2 && b_shape[1] % kMatmulWeightPanel == 0;
}

std::vector<int64_t> matmul_panel_shape(const std::vector<int64_t>& b_shape) {
  return {b_shape[1] / kMatmulWeightPanel, b_shape[0], kMatmulWeightPanel};
}

void pack_matmul_panels(const float* b_data, const std::vector<int64_t>& b_shape, float* out) {
  const int64_t k = b_shape[0], n = b_shape[1];
  constexpr int64_t block = kMatmulWeightPanel;
  for (int64_t row = 0; row < k; ++row) {
    for (int64_t col = 0; col < n; ++col) out[((col / block) * k + row) * block + col % block] = b_data[row * n + col];
  }
}

Workload matmul_runtime_layout(const Workload& w) {
  MatmulAttrs attrs = matmul_attrs(w);
  const std::vector<int64_t>& b = w.inputs[1].shape;
  if (attrs.b_block != 0 || attrs.trans_b || !matmul_weights_fill_panels(b)) return w;
  const TensorType panels{w.inputs[1].dtype, matmul_panel_shape(b)};
  attrs.b_block = kMatmulWeightPanel;
  return make_matmul_workload(w.inputs[0], panels, matmul_has_bias(w) ? &w.inputs[2] : nullptr, attrs);
}

}  // namespace nee
