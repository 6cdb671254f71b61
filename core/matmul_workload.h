#pragma once
#include <string>

#include "core/workload.h"

namespace nee {

// The matmul family covers ONNX MatMul (batched, broadcasting) and Gemm, with an
// optional fused epilogue: a bias added after the product, then a Relu or an Erf-based
// GELU (x * 0.5 * (1 + erf(x / sqrt(2)))).
// out = act(alpha * op(A) x op(B) + beta * C)
struct MatmulAttrs {
  bool trans_a = false;
  bool trans_b = false;
  double alpha = 1.0;
  double beta = 1.0;
  bool relu = false;
  bool gelu = false;  // the key holds "gelu" only when set, so older keys are unchanged
  // B packed ahead of time as panels of b_block columns, [ceil(N / b_block), K, b_block]
  // (passes.h: pack_matmul_weights); 0: B as ONNX has it. Held in the key only when set.
  int64_t b_block = 0;
  // With b_block, N where the last panel holds fewer than b_block columns (its other lanes
  // are zeros); 0: every lane of the panels is a column. Held in the key only when set.
  int64_t b_columns = 0;
  // B's panels hold quantized integers (passes.h: quantize_matmul_weights): b_bits 8, one
  // byte an element, [ceil(N / b_block), K, b_block] u8; or b_bits 4, two a byte (the even
  // row in the low nibble), [ceil(N / b_block), K / 2, b_block] u8. Element (k, n) is then
  // q * scale + offset with the scale and offset of its group of b_group rows, from a third
  // operand [ceil(N / b_block), ceil(K / b_group), 2, b_block] f32 (scales, then offsets).
  // 0: B holds f32. Both held in the key only when set.
  int64_t b_bits = 0;
  int64_t b_group = 0;
};

// Validates shapes and computes the output shape (ONNX broadcasting of batch dims and of
// C). Throws nee::Error naming the mismatch. A and B have rank >= 2; trans_a/trans_b
// are allowed only at rank 2 (Gemm). A B packed in panels has rank 3 and no batch dims.
Workload make_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                              const MatmulAttrs& attrs);
// The same with B quantized in panels (attrs.b_bits), b_scales its groups' scales and
// offsets.
Workload make_quantized_matmul_workload(const TensorType& a, const TensorType& b, const TensorType& b_scales,
                                        const TensorType* c, const MatmulAttrs& attrs);
MatmulAttrs matmul_attrs(const Workload& w);
bool matmul_has_bias(const Workload& w);
// The index of C among the workload's inputs (after B's scales where B is quantized).
size_t matmul_bias_input(const MatmulAttrs& attrs);
// B's logical [.., K, N] shape: its own, or that of the matrix its panels hold.
std::vector<int64_t> matmul_logical_b_shape(const std::vector<int64_t>& b_shape, const MatmulAttrs& attrs);

// Parses "MxKxN" or "BxMxKxN" as used on the command line into a plain MatMul workload.
Workload matmul_workload_from_shape(const std::string& shape);

}  // namespace nee
