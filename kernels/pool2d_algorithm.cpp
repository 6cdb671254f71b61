#include "kernels/pool2d_algorithm.h"

#include <limits>

#include "core/error.h"
#include "core/family.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

namespace {

// Taps k in [0, kernel) whose position base + k * dilation lies in [lo, hi), in closed
// form (Halide's integer division rounds down, so (a + d - 1) / d is ceil(a / d) for any
// sign): the divisor of an average, with no loop per output.
Expr taps_between(Expr base, int kernel, int dilation, int lo, int hi) {
  const Expr first = max(0, (lo - base + dilation - 1) / dilation);
  const Expr last = min(kernel, (hi - base + dilation - 1) / dilation);
  return max(last - first, 0);
}

}  // namespace

std::vector<Expr> Pool2dPipeline::at(const Expr& at_x, const Expr& at_y) const {
  if (blocked) return {lane, at_x, at_y, c, n};
  return {at_x, at_y, c, n};
}

Pool2dPipeline define_pool2d(const Workload& w) {
  if (family_of(w).id != FamilyId::pool2d) throw Error("define_pool2d got a '" + w.op + "' workload");
  const Pool2dAttrs a = pool2d_attrs(w);
  // The window's geometry is the same in both layouts: H and W are dims 2 and 3 of
  // [N, C, H, W] and of [N, C/16, H, W, 16].
  const auto& xs = w.inputs[0].shape;
  Pool2dPipeline p;
  p.average = a.kind == PoolKind::average;
  p.blocked = a.block != 0;
  p.out_h = w.output.shape[2];
  p.out_w = w.output.shape[3];
  const std::vector<int64_t> nchw = pool2d_nchw_input(w).shape;
  p.planes = nchw[0] * nchw[1];
  p.kernel_h = a.kernel[0];
  p.kernel_w = a.kernel[1];

  p.input = ImageParam(Float(32), static_cast<int>(xs.size()), "input");
  constrain_dense_input(p.input, xs);
  const Var &x = p.x, &y = p.y;
  const int ih = static_cast<int>(xs[2]), iw = static_cast<int>(xs[3]);
  const std::vector<Expr> here = p.at(x, y);

  // The clamped read keeps every load in bounds even where a schedule computes this
  // stage over a larger region than the window needs.
  const Expr outside = p.average ? Expr(0.0f) : Expr(-std::numeric_limits<float>::infinity());
  p.padded = Func("padded");
  p.padded(here) = select(x >= 0 && x < iw && y >= 0 && y < ih,
                          p.input(p.at(clamp(x, 0, iw - 1), clamp(y, 0, ih - 1))), outside);

  const int sh = static_cast<int>(a.strides[0]), sw = static_cast<int>(a.strides[1]);
  const int dh = static_cast<int>(a.dilations[0]), dw = static_cast<int>(a.dilations[1]);
  const int ph = static_cast<int>(a.pads[0]), pw = static_cast<int>(a.pads[1]);
  p.r = RDom(0, static_cast<int>(p.kernel_w), 0, static_cast<int>(p.kernel_h), "r");
  const Expr tap = p.padded(p.at(x * sw + p.r.x * dw - pw, y * sh + p.r.y * dh - ph));
  p.pooled = Func("pooled");
  if (p.average) {
    p.pooled(here) = 0.0f;
    p.pooled(here) += tap;
  } else {
    p.pooled(here) = outside;
    p.pooled(here) = max(p.pooled(here), tap);
  }

  p.out = Func("out");
  if (p.average) {
    // Taps inside the input, or with count_include_pad inside the padded input.
    const int lo_h = a.count_include_pad ? -ph : 0, hi_h = ih + (a.count_include_pad ? static_cast<int>(a.pads[2]) : 0);
    const int lo_w = a.count_include_pad ? -pw : 0, hi_w = iw + (a.count_include_pad ? static_cast<int>(a.pads[3]) : 0);
    const Expr divisor = taps_between(y * sh - ph, static_cast<int>(p.kernel_h), dh, lo_h, hi_h) *
                         taps_between(x * sw - pw, static_cast<int>(p.kernel_w), dw, lo_w, hi_w);
    p.out(here) = p.pooled(here) / cast<float>(divisor);
  } else {
    p.out(here) = p.pooled(here);
  }
  return p;
}

}  // namespace nee
