#include "core/matmul_weight_layout.h"

#include "core/matmul_workload.h"

namespace nee {

bool matmul_weights_fill_panels(const std::vector<int64_t>& b_shape, bool transposed) {
  return b_shape.size() == 2 && b_shape[transposed ? 0 : 1] % kMatmulWeightPanel == 0;
}

std::vector<int64_t> matmul_panel_shape(const std::vector<int64_t>& b_shape, bool transposed) {
  const int64_t k = b_shape[transposed ? 1 : 0], n = b_shape[transposed ? 0 : 1];
  return {n / kMatmulWeightPanel, k, kMatmulWeightPanel};
}

void pack_matmul_panels(const float* b_data, const std::vector<int64_t>& b_shape, bool transposed, float* out) {
  const int64_t k = b_shape[transposed ? 1 : 0], n = b_shape[transposed ? 0 : 1];
  constexpr int64_t block = kMatmulWeightPanel;
  for (int64_t col = 0; col < n; ++col) {
    float* panel_column = out + (col / block) * k * block + col % block;
    for (int64_t row = 0; row < k; ++row) {
      panel_column[row * block] = transposed ? b_data[col * k + row] : b_data[row * n + col];
    }
  }
}

Workload matmul_runtime_layout(const Workload& w) {
  MatmulAttrs attrs = matmul_attrs(w);
  const std::vector<int64_t>& b = w.inputs[1].shape;
  if (attrs.b_block != 0 || !matmul_weights_fill_panels(b, attrs.trans_b)) return w;
  const TensorType panels{w.inputs[1].dtype, matmul_panel_shape(b, attrs.trans_b)};
  attrs.b_block = kMatmulWeightPanel;
  attrs.trans_b = false;
  return make_matmul_workload(w.inputs[0], panels, matmul_has_bias(w) ? &w.inputs[2] : nullptr, attrs);
}

}  // namespace nee
