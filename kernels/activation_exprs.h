#pragma once
#include <Halide.h>

namespace nee {

// Activations as Halide expressions, shared by the kernel families' epilogues.

// erf(x) by Abramowitz and Stegun 7.1.26 (Halide 14 has no erf): |error| <= 1.5e-7 in
// exact arithmetic; measured 4.6e-7 at most against std::erf in f32 over [-6, 6]
// (tests/kernels/elementwise_kernel_test.cpp), far below the 1e-5 the references allow.
Halide::Expr erf_approx(const Halide::Expr& x);
Halide::Expr sigmoid(const Halide::Expr& x);
// tanh as Cephes' tanhf computes it: x + x^3 P(x^2) below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1)
// with x's sign above. Halide's tanh calls libm's tanhf one lane at a time (6 ns an element
// here, 84% of a super-resolution CNN's time); this one vectorizes, as Halide's exp does.
Halide::Expr tanh_approx(const Halide::Expr& x);
// x * sigmoid(x)
Halide::Expr silu(const Halide::Expr& x);
// max(0, min(1, x / 6 + 0.5)) and x times it, as core/activations.h computes them.
Halide::Expr hard_sigmoid(const Halide::Expr& x);
Halide::Expr hard_swish(const Halide::Expr& x);
// x * 0.5 * (1 + erf(x / sqrt(2))), in the order of core/activations.h's gelu.
Halide::Expr gelu(const Halide::Expr& x);

}  // namespace nee
