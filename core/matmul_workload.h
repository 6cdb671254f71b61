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
  // a_bits 8: an integer product (passes.h: quantize_matmul_activations). The kernel
  // quantizes A to u8 as QuantizeLinear does, q = saturate(round(a / a_scale) + a_zero)
  // (ties to even; a scale below FLT_MIN counts as FLT_MIN, DynamicQuantizeLinear's of a
  // tensor of zeros being 0), and B holds signed bytes in panels of b_block (16) columns by
  // four rows, [ceil(N / 16), K / 4, 16, 4] i8 (K a multiple of 4), so that one 32-bit lane
  // of a vector is four rows of one column: a VNNI dot product. Then
  // out = (sum_k q * b - a_zero * column_sum[n]) * multiplier[n], the sums in i32, from
  // b_scales [ceil(N / 16), 2, 16] f32 (multipliers, then column sums, integers), before
  // alpha, the bias and the activation. The operands: a, b, b_scales, a_scale (f32) and
  // a_zero (u8), one element each, then C. b_bits is 8 and b_group 0 with it. Held in the
  // key only when set.
  int64_t a_bits = 0;
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
// The same as an integer product (attrs.a_bits): B's integer panels, their multipliers and
// column sums, and A's scale and zero point.
Workload make_integer_matmul_workload(const TensorType& a, const TensorType& b, const TensorType& b_scales,
                                      const TensorType& a_scale, const TensorType& a_zero, const TensorType* c,
                                      const MatmulAttrs& attrs);
MatmulAttrs matmul_attrs(const Workload& w);
bool matmul_has_bias(const Workload& w);
// The index of C among the workload's inputs (after B's scales where B is quantized, and
// A's scale and zero point in an integer product).
size_t matmul_bias_input(const MatmulAttrs& attrs);
// The element type of operand `index` (a, b, ...) of a product with these attributes: B's
// panels u8 where quantized, i8 in an integer product, whose A zero point is u8; f32 else.
DType matmul_operand_dtype(const MatmulAttrs& attrs, size_t index);
// B's logical [.., K, N] shape: its own, or that of the matrix its panels hold.
std::vector<int64_t> matmul_logical_b_shape(const std::vector<int64_t>& b_shape, const MatmulAttrs& attrs);

// Parses "MxKxN" or "BxMxKxN" as used on the command line into a plain MatMul workload.
Workload matmul_workload_from_shape(const std::string& shape);

}  // namespace nee
