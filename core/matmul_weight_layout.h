#pragma once
#include <cstdint>
#include <vector>

#include "core/workload.h"

namespace nee {

// Matmul weights packed in panels. A product by constant weights B [K, N] (a Gemm's
// transposed constant B is held as [K, N] already: fuse_gemm) may hold B as
// [N / 16, K, 16]: element (k, n) at [n / 16, k, n % 16], so a kernel's 16-column panel
// of B is one sequential stream of K rows, where B as ONNX has it strides a row (often a
// page) apart and a kernel packs the panel again for every tile of rows. 16 floats fill
// one AVX-512 register or two AVX2 or four NEON ones.
// The runtime packs constant weights once when it prepares a model.
constexpr int64_t kMatmulWeightPanel = 16;

// Whether a B of this shape packs: [K, N] with N a multiple of the panel width.
bool matmul_weights_fill_panels(const std::vector<int64_t>& b_shape);

// [K, N] -> [N / kMatmulWeightPanel, K, kMatmulWeightPanel].
std::vector<int64_t> matmul_panel_shape(const std::vector<int64_t>& b_shape);

// Copies B [K, N] into the packed layout (out holds matmul_panel_shape's elements).
void pack_matmul_panels(const float* b_data, const std::vector<int64_t>& b_shape, float* out);

// The product as a runtime that packs constant weights runs it: an untransposed 2-D B
// that fills panels becomes one of panels (b_block); any other workload is returned as
// it is.
Workload matmul_runtime_layout(const Workload& w);

}  // namespace nee
