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

// A [K, N] matrix of unsigned integers with a scale and an offset per group of `group`
// rows and column: element (k, n) is q(k, n) * scale + offset. Each q is below 2^bits.
struct QuantizedMatrix {
  int64_t rows = 0, columns = 0;
  int64_t group = 0;
  int64_t bits = 8;              // 4: every q below 16, and rows even
  std::vector<uint8_t> values;   // [rows, columns]
  std::vector<float> scales;     // [ceil(rows / group), columns]
  std::vector<float> offsets;    // the same
};

// The panels and scales of a product by a quantized B (MatmulAttrs::b_bits):
// [ceil(N / 16), K * bits / 8, 16] u8 and [ceil(N / 16), ceil(K / group), 2, 16] f32.
std::vector<int64_t> quantized_panel_shape(const QuantizedMatrix& b);
std::vector<int64_t> quantized_scales_shape(const QuantizedMatrix& b);
// Fills them (panels and scales hold the shapes' elements); lanes past N are zeros, so
// they weigh zero.
void pack_quantized_panels(const QuantizedMatrix& b, uint8_t* panels, float* scales);
// The f32 [K, N] matrix quantized panels hold, each element q * scale + offset computed
// as one fused multiply-add, as the kernels do.
void dequantize_panels(const uint8_t* panels, const float* scales, const MatmulAttrs& attrs, int64_t k, int64_t n,
                       float* out);

// A [K, N] matrix of signed bytes with a multiplier per column, for an integer product
// (MatmulAttrs::a_bits); K is a multiple of 4.
struct IntegerMatrix {
  int64_t rows = 0, columns = 0;
  std::vector<int8_t> values;      // [rows, columns]
  std::vector<float> multipliers;  // [columns]
};

// Its panels and their multipliers and column sums:
// [ceil(N / 16), K / 4, 16, 4] i8 and [ceil(N / 16), 2, 16] f32.
std::vector<int64_t> integer_panel_shape(int64_t rows, int64_t columns);
std::vector<int64_t> integer_scales_shape(int64_t columns);
// Fills them (panels and scales hold the shapes' elements); lanes past N are zeros.
void pack_integer_panels(const IntegerMatrix& b, int8_t* panels, float* scales);

// The product as a runtime that packs constant weights runs it: an untransposed 2-D B
// becomes one of panels (b_block, padded where N needs it); any other workload is
// returned as it is.
Workload matmul_runtime_layout(const Workload& w);

}  // namespace nee
