#pragma once
#include <vector>

#include <Halide.h>

#include "core/workload.h"

namespace nee {

// The matmul family as a Halide algorithm: what is computed, never how. Shapes are static
// (taken from the workload) so the schedule sees constant extents and strides.
//
// Halide dimension order is the reverse of ONNX's: out(n, m, batch...) where n is the
// innermost (contiguous) ONNX dimension.
struct MatmulPipeline {
  Halide::ImageParam a, b, c;  // c is defined only when the workload has a bias
  Halide::ImageParam b_scales;  // defined only when B is quantized (MatmulAttrs::b_bits)
  Halide::ImageParam a_scale, a_zero;  // defined only in an integer product (MatmulAttrs::a_bits)
  Halide::Func b_panel;        // identity stage over B; the schedule may store it packed
  // an integer product's A quantized, a_quantized(k, m, batch...): u8, or as f32 less the
  // zero point where it sums in f32
  Halide::Func a_quantized;
  // the reduction: acc(n, m, batch...) += A * B; in an integer product, in i32 over
  // k = k.y * 4 + k.x, the schedule vectorizing k.x into dot products
  Halide::Func acc;
  Halide::Func out;            // epilogue: alpha, bias, relu or gelu
  Halide::Var n{"n"}, m{"m"};
  std::vector<Halide::Var> batch;  // outer-first order reversed: batch[0] is the innermost batch dim
  Halide::RDom k;
  int64_t size_m = 0, size_n = 0, size_k = 0;
  std::vector<int64_t> batch_sizes;  // same order as `batch`

  // a, b, [b_scales], [a_scale, a_zero], [c] in the kernel's call order
  std::vector<Halide::Argument> arguments() const;
};

// clamp_reads: reads of B clamp their indices to the buffers' extents. Values are
// unchanged; it lets a schedule compute over a region larger than the output, which
// Halide's autoschedulers do (Adams2019 read B at n = -472 on a 512-cubed MatMul
// without it). NEE's own schedule spaces never need it.
// byte_dot_products: an integer product (MatmulAttrs::a_bits) sums A's bytes times B's in
// i32, four rows at a time, for targets with VNNI; otherwise it sums A's bytes less the zero
// point times B's as f32 (b_panel holds B's bytes as floats), as a float product does,
// exact while a sum stays below 2^24.
MatmulPipeline define_matmul(const Workload& w, bool clamp_reads = false, bool byte_dot_products = true);

}  // namespace nee
