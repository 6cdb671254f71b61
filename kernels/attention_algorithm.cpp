#include "kernels/attention_algorithm.h"

#include <limits>

#include "core/error.h"
#include "core/family.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

std::vector<Var> AttentionPipeline::out_args() const {
  return sequence_major ? std::vector<Var>{dv, g, s} : std::vector<Var>{dv, s, g};
}

std::vector<Argument> AttentionPipeline::arguments() const {
  std::vector<Argument> args = {q, k, v};
  if (mask.defined()) args.push_back(mask);
  return args;
}

AttentionPipeline define_attention(const Workload& w) {
  if (family_of(w).id != FamilyId::attention) throw Error("define_attention got a '" + w.op + "' workload");
  AttentionPipeline p;
  const AttentionAttrs attrs = attention_attrs(w);
  p.dims = attention_dims(w);
  p.sequence_major = attrs.layout == AttentionLayout::sequence_major;
  p.q = ImageParam(Float(32), 3, "q");
  p.k = ImageParam(Float(32), 3, "k");
  p.v = ImageParam(Float(32), 3, "v");
  constrain_dense_input(p.q, w.inputs[0].shape);
  constrain_dense_input(p.k, w.inputs[1].shape);
  constrain_dense_input(p.v, w.inputs[2].shape);
  const AttentionDims& n = p.dims;
  p.rd = RDom(0, static_cast<int>(n.depth), "rd");
  p.rt = RDom(0, static_cast<int>(n.keys), "rt");
  Var t = p.t, d = p.d, s = p.s, g = p.g, dv = p.dv;

  // Halide order reverses ONNX's: Q [S, G, D] is q(d, g, s), K [T, G, D] is k(d, g, t).
  // Every read clamps its query, key and value column to the operands' extents, so a
  // schedule may compute any Func over a region rounded up past them (the keys past the
  // last are zeros in `keys`, the value columns past the last zeros in `values`; the
  // other clamped reads only fill rows that no output reads).
  const Expr last_key = static_cast<int>(n.keys - 1);
  const Expr tc = min(t, last_key);
  const Expr sc = min(s, static_cast<int>(n.queries - 1));
  const auto query = [&](Expr dd) { return p.sequence_major ? p.q(dd, g, sc) : p.q(dd, sc, g); };
  const Expr last_column = static_cast<int>(n.value_depth - 1);
  const Expr dvc = min(dv, last_column);
  const Expr key = p.sequence_major ? p.k(d, g, tc) : p.k(tc, d, g);
  p.keys = Func("keys");
  p.keys(t, d, g) = select(t <= last_key, key, 0.0f);

  p.dot = Func("dot");
  p.dot(t, s, g) = 0.0f;
  p.dot(t, s, g) += query(p.rd.x) * p.keys(t, p.rd.x, g);

  Expr logit = p.dot(t, s, g) * static_cast<float>(attrs.scale);
  if (attention_has_mask(w)) {
    const std::vector<int64_t>& mask_shape = w.inputs[3].shape;
    p.mask = ImageParam(Float(32), static_cast<int>(mask_shape.size()), "mask");
    constrain_dense_input(p.mask, mask_shape);
    logit += p.mask(broadcast_coords(mask_shape, {tc, sc, g})) * static_cast<float>(attrs.mask_scale);
  }
  p.logits = Func("logits");
  p.logits(t, s, g) = logit;

  p.row_max = Func("row_max");
  p.row_max(s, g) = -std::numeric_limits<float>::infinity();
  p.row_max(s, g) = max(p.row_max(s, g), p.logits(p.rt.x, s, g));
  p.exps = Func("exps");
  p.exps(t, s, g) = exp(p.logits(t, s, g) - p.row_max(s, g));
  p.row_sum = Func("row_sum");
  p.row_sum(s, g) = 0.0f;
  p.row_sum(s, g) += p.exps(p.rt.x, s, g);

  p.weighted = Func("weighted");
  p.weighted(dv, s, g) = 0.0f;
  p.values = Func("values");
  p.values(dv, t, g) = select(dv <= last_column, p.sequence_major ? p.v(dvc, g, tc) : p.v(dvc, tc, g), 0.0f);
  p.weighted(dv, s, g) += p.exps(p.rt.x, s, g) * p.values(dv, p.rt.x, g);
  p.out = Func("out");
  p.out(p.out_args()) = p.weighted(dv, s, g) * (1.0f / p.row_sum(s, g));
  return p;
}

}  // namespace nee
