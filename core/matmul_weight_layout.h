#pragma once
#include <cstdint>
#include <vector>

#include "core/matmul_workload.h"
#include "core/workload.h"

namespace nee {

// Matmul weights packed in panels. A product by constant weights B [K, N] (a Gemm's
// transposed constant B is held as [K, N] already: fuse_gemm) may hold B as
// [N / 16, K, 16]: element (k, n) at [n / 16, k, n % 16], so a kernel's 16-column panel
// of B is one sequential stream of K rows, where B as ONNX has it strides a row (often a
// page) apart and a kernel packs the panel again for every tile of rows. 16 floats fill
// one AVX-512 register or two AVX2 or four NEON ones. Where N is not a multiple of 16
// (an ImageNet classifier's 1000), the last panel's lanes past N are zeros.
// The runtime packs constant weights once when it prepares a model.
constexpr int64_t kMatmulWeightPanel = 16;

// Whether a B of this shape packs: [K, N], with N a multiple of the panel width unless
// the last panel may be padded.
bool matmul_weights_pack(const std::vector<int64_t>& b_shape, bool pad_panels);

// [K, N] -> [ceil(N / kMatmulWeightPanel), K, kMatmulWeightPanel].
std::vector<int64_t> matmul_panel_shape(const std::vector<int64_t>& b_shape);

// Copies B [K, N] into the packed layout, zeros past N (out holds matmul_panel_shape's
// elements).
void pack_matmul_panels(const float* b_data, const std::vector<int64_t>& b_shape, float* out);

// The attributes of a product whose B [K, N] is packed: b_block, and b_columns where N
// is not a multiple of the panel width.
MatmulAttrs with_packed_b(MatmulAttrs attrs, const std::vector<int64_t>& b_shape);

// The product as a runtime that packs constant weights runs it: an untransposed 2-D B
// becomes one of panels (b_block, padded where N needs it); any other workload is
// returned as it is.
Workload matmul_runtime_layout(const Workload& w);

}  // namespace nee
