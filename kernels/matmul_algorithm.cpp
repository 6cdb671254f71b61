#include "kernels/matmul_algorithm.h"

#include <limits>

#include "core/error.h"
#include "core/family.h"
#include "core/matmul_weight_layout.h"
#include "core/matmul_workload.h"
#include "kernels/activation_exprs.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

// Index expressions for an operand of the given ONNX shape inside the output's batch
// space: batch dims are aligned from the right and broadcast (size 1) dims read index 0.
static std::vector<Expr> batch_indices(const std::vector<int64_t>& shape, int matrix_dims,
                                       const std::vector<Var>& batch) {
  std::vector<Expr> idx;
  const int operand_batch = static_cast<int>(shape.size()) - matrix_dims;
  for (int i = 0; i < operand_batch; ++i) {
    const int64_t extent = shape[shape.size() - matrix_dims - 1 - i];
    idx.push_back(extent == 1 ? Expr(0) : Expr(batch[i]));
  }
  return idx;
}

std::vector<Argument> MatmulPipeline::arguments() const {
  std::vector<Argument> args = {a, b};
  if (b_scales.defined()) args.push_back(b_scales);
  if (a_scale.defined()) args.insert(args.end(), {a_scale, a_zero});
  if (c.defined()) args.push_back(c);
  return args;
}

namespace {

// An integer product's A quantized, its sums and their epilogue up to alpha
// (MatmulAttrs::a_bits): returns (acc - a_zero * column_sum) * multiplier, or where it sums
// in f32 (not byte_dot_products) acc * multiplier over A less its zero point. `a_idx` reads
// A at the reduction's k; `panel` is column n's panel of B; `panel_vars` b_panel's vars.
Expr define_integer_product(MatmulPipeline& p, const Workload& w, const std::vector<Expr>& a_idx, const Expr& panel,
                            const std::vector<Var>& panel_vars, bool clamp_reads, bool byte_dot_products) {
  const auto& s_shape = w.inputs[2].shape;
  p.b_scales = ImageParam(Float(32), 3, "b_scales");
  constrain_dense_input(p.b_scales, s_shape);
  p.a_scale = ImageParam(Float(32), static_cast<int>(w.inputs[3].shape.size()), "a_scale");
  p.a_zero = ImageParam(UInt(8), static_cast<int>(w.inputs[4].shape.size()), "a_zero");
  constrain_dense_input(p.a_scale, w.inputs[3].shape);
  constrain_dense_input(p.a_zero, w.inputs[4].shape);
  const std::vector<Expr> first(w.inputs[3].shape.size(), 0), first_zero(w.inputs[4].shape.size(), 0);
  const Expr scale = max(p.a_scale(first), std::numeric_limits<float>::min());
  const Expr zero = p.a_zero(first_zero);

  // a_quantized(k, m, batch...): A's reads with the reduction's k as a pure variable.
  const Var kv("kv");
  std::vector<Var> quantized_vars = {kv, p.m};
  for (const Var& v : p.batch) quantized_vars.push_back(v);
  std::vector<Expr> a_at_kv = a_idx;
  a_at_kv[0] = kv;
  p.a_quantized = Func("a_quantized");
  const Expr quantized = clamp(round(p.a(a_at_kv) / scale) + cast<float>(zero), 0.0f, 255.0f);
  p.a_quantized(quantized_vars) =
      byte_dot_products ? cast<uint8_t>(quantized) : Expr(quantized - cast<float>(zero));

  const int block = kMatmulWeightPanel;
  std::vector<Var> out_vars = {p.n, p.m};
  for (const Var& v : p.batch) out_vars.push_back(v);
  const int panels = static_cast<int>(w.inputs[1].shape[0]);
  const Expr read_panel = clamp_reads ? clamp(panel, 0, panels - 1) : panel;
  const Expr lane = p.n % block;
  if (!byte_dot_products) {
    const Expr kk = panel_vars[1];
    p.b_panel(panel_vars) = cast<float>(p.b(kk % 4, lane, kk / 4, read_panel));
    p.k = RDom(0, static_cast<int>(p.size_k), "k");
    std::vector<Expr> quantized_at_k = {p.k.x, p.m}, panel_at_k = {p.n, p.k.x};
    for (const Var& v : p.batch) {
      quantized_at_k.push_back(v);
      panel_at_k.push_back(v);
    }
    p.acc = Func("acc");
    p.acc(out_vars) = 0.0f;
    p.acc(out_vars) += p.a_quantized(quantized_at_k) * p.b_panel(panel_at_k);
    return p.acc(out_vars) * p.b_scales(lane, 0, read_panel);
  }
  p.k = RDom(0, 4, 0, static_cast<int>(p.size_k / 4), "k");
  std::vector<Expr> quantized_at_k = {p.k.y * 4 + p.k.x, p.m};
  for (const Var& v : p.batch) quantized_at_k.push_back(v);
  p.acc = Func("acc");
  p.acc(out_vars) = 0;
  p.acc(out_vars) += cast<int32_t>(p.a_quantized(quantized_at_k)) *
                     cast<int32_t>(p.b(p.k.x, p.n % block, p.k.y, read_panel));
  const Expr column_sum = cast<int32_t>(p.b_scales(lane, 1, read_panel));
  return cast<float>(p.acc(out_vars) - cast<int32_t>(zero) * column_sum) * p.b_scales(lane, 0, read_panel);
}

}  // namespace

MatmulPipeline define_matmul(const Workload& w, bool clamp_reads, bool byte_dot_products) {
  if (family_of(w).id != FamilyId::matmul) throw Error("define_matmul got a '" + w.op + "' workload");
  const MatmulAttrs attrs = matmul_attrs(w);
  const auto& sa = w.inputs[0].shape;
  const auto& sb = w.inputs[1].shape;
  const auto& so = w.output.shape;
  const int out_rank = static_cast<int>(so.size());

  MatmulPipeline p;
  p.a = ImageParam(Float(32), static_cast<int>(sa.size()), "a");
  p.b = ImageParam(attrs.a_bits != 0 ? Int(8) : attrs.b_bits != 0 ? UInt(8) : Float(32), static_cast<int>(sb.size()),
                   "b");
  constrain_dense_input(p.a, sa);
  constrain_dense_input(p.b, sb);
  p.size_m = so[out_rank - 2];
  p.size_n = so[out_rank - 1];
  p.size_k = attrs.trans_a ? sa[sa.size() - 2] : sa.back();
  for (int i = 0; i < out_rank - 2; ++i) {
    p.batch.push_back(Var("b" + std::to_string(i)));
    p.batch_sizes.push_back(so[out_rank - 3 - i]);
  }
  p.k = RDom(0, static_cast<int>(p.size_k), "k");
  const Var& n = p.n;
  const Var& m = p.m;
  const RVar k = p.k.x;

  std::vector<Var> b_vars = {n, Var("kb")};
  std::vector<Expr> a_idx = attrs.trans_a ? std::vector<Expr>{m, k} : std::vector<Expr>{k, m};
  for (const Expr& e : batch_indices(sa, 2, p.batch)) a_idx.push_back(e);
  const auto clamped = [&](std::vector<Expr> idx, const std::vector<int64_t>& shape) {
    if (!clamp_reads) return idx;
    const int rank = static_cast<int>(shape.size());
    for (int d = 0; d < rank; ++d) idx[d] = clamp(idx[d], 0, static_cast<int>(shape[rank - 1 - d]) - 1);
    return idx;
  };

  // b_panel(n, kk, batch...) = B[.., kk, n]: the schedule stores it as a packed panel
  // of the right-hand matrix, or inlines it.
  std::vector<Var> panel_vars = {n, Var("kk")};
  for (const Var& v : p.batch) panel_vars.push_back(v);
  std::vector<Expr> b_idx;
  if (attrs.b_block != 0) {
    // Packed ahead of time: column n of B is lane n % b_block of panel n / b_block.
    const int block = static_cast<int>(attrs.b_block);
    // Past a padded last panel the index stays on it: a guarded ragged register block
    // computes whole vectors there, whose lanes past N are never stored.
    const Expr panel = attrs.b_columns != 0 ? min(n / block, static_cast<int>(sb[0]) - 1) : n / block;
    b_idx = {n % block, panel_vars[1], panel};
  } else {
    b_idx = attrs.trans_b ? std::vector<Expr>{panel_vars[1], n} : std::vector<Expr>{n, panel_vars[1]};
    for (const Expr& e : batch_indices(sb, 2, p.batch)) b_idx.push_back(e);
  }
  p.b_panel = Func("b_panel");
  std::vector<Var> out_vars = {n, m};
  for (const Var& v : p.batch) out_vars.push_back(v);
  Expr value;
  if (attrs.a_bits != 0) {
    value = define_integer_product(p, w, a_idx, b_idx[2], panel_vars, clamp_reads, byte_dot_products);
  } else if (attrs.b_bits == 0) {
    p.b_panel(panel_vars) = p.b(clamped(b_idx, sb));
  } else {
    // Quantized panels: row kk's integer (its nibble where two rows share a byte) times its
    // group's scale plus its offset.
    p.b_scales = ImageParam(Float(32), 4, "b_scales");
    constrain_dense_input(p.b_scales, w.inputs[2].shape);
    const Expr kk = panel_vars[1];
    const auto& s_shape = w.inputs[2].shape;
    Expr q = p.b(clamped({b_idx[0], attrs.b_bits == 4 ? kk / 2 : kk, b_idx[2]}, sb));
    if (attrs.b_bits == 4) q = select(kk % 2 == 0, q & 15, q >> 4);
    const Expr group = kk / static_cast<int>(attrs.b_group);
    p.b_panel(panel_vars) = cast<float>(q) * p.b_scales(clamped({b_idx[0], 0, group, b_idx[2]}, s_shape)) +
                            p.b_scales(clamped({b_idx[0], 1, group, b_idx[2]}, s_shape));
  }

  if (attrs.a_bits == 0) {
    std::vector<Expr> panel_at_k = {n, k};
    for (const Var& v : p.batch) panel_at_k.push_back(v);
    p.acc = Func("acc");
    p.acc(out_vars) = 0.0f;
    p.acc(out_vars) += p.a(a_idx) * p.b_panel(panel_at_k);
    value = p.acc(out_vars);
  }
  if (attrs.alpha != 1.0) value = value * static_cast<float>(attrs.alpha);
  if (matmul_has_bias(w)) {
    const auto& sc = w.inputs[matmul_bias_input(attrs)].shape;
    p.c = ImageParam(Float(32), static_cast<int>(sc.size()), "c");
    constrain_dense_input(p.c, sc);
    // C broadcasts to the output from the right, over matrix and batch dims alike.
    std::vector<Expr> c_idx;
    for (size_t i = 0; i < sc.size(); ++i) {
      const int64_t extent = sc[sc.size() - 1 - i];
      c_idx.push_back(extent == 1 ? Expr(0) : Expr(out_vars[i]));
    }
    Expr bias = p.c(c_idx);
    if (attrs.beta != 1.0) bias = bias * static_cast<float>(attrs.beta);
    value = value + bias;
  }
  if (attrs.relu) value = max(value, 0.0f);
  if (attrs.gelu) value = gelu(value);
  p.out = Func("out");
  p.out(out_vars) = value;
  return p;
}

}  // namespace nee
