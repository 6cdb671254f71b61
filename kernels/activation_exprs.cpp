#include "kernels/activation_exprs.h"

namespace nee {

using namespace Halide;

Expr erf_approx(const Expr& x) {
  const Expr ax = abs(x);
  const Expr t = 1.0f / (1.0f + 0.3275911f * ax);
  const Expr poly =
      t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const Expr y = 1.0f - poly * exp(-ax * ax);
  return select(x < 0.0f, -y, y);
}

Expr sigmoid(const Expr& x) { return 1.0f / (1.0f + exp(-x)); }

Expr tanh_approx(const Expr& x) {
  const Expr ax = abs(x);
  const Expr large = 1.0f - 2.0f / (exp(2.0f * ax) + 1.0f);
  const Expr z = x * x;
  const Expr p = (((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
                 3.33332819422e-1f;
  return select(ax > 0.625f, select(x < 0.0f, -large, large), x + x * z * p);
}

Expr silu(const Expr& x) { return x * sigmoid(x); }

Expr hard_sigmoid(const Expr& x) { return clamp(x * (1.0f / 6.0f) + 0.5f, 0.0f, 1.0f); }

Expr hard_swish(const Expr& x) { return x * hard_sigmoid(x); }

Expr gelu(const Expr& x) { return x * (1.0f + erf_approx(x / 1.41421356f)) * 0.5f; }

}  // namespace nee
