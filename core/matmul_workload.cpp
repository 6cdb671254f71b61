#include "core/matmul_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"
#include "core/json_numbers.h"
#include "core/matmul_weight_layout.h"

namespace nee {

namespace {

// A matmul workload's attributes as made (beta 0 without C) and whether it has C.
struct StoredMatmulAttrs final : WorkloadAttrs {
  MatmulAttrs attrs;
  bool bias = false;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"trans_a", attrs.trans_a ? 1 : 0}, {"trans_b", attrs.trans_b ? 1 : 0},
                        {"alpha", attrs.alpha},           {"beta", attrs.beta},
                        {"relu", attrs.relu ? 1 : 0},     {"bias", bias ? 1 : 0}};
    if (attrs.gelu) j["gelu"] = 1;
    if (attrs.b_block != 0) j["b_block"] = attrs.b_block;
    if (attrs.b_columns != 0) j["b_columns"] = attrs.b_columns;
    if (attrs.b_bits != 0) j["b_bits"] = attrs.b_bits;
    if (attrs.b_group != 0) j["b_group"] = attrs.b_group;
    if (attrs.a_bits != 0) j["a_bits"] = attrs.a_bits;
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> matmul_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredMatmulAttrs>();
  MatmulAttrs& a = stored->attrs;
  a.trans_a = json_int(j.at("trans_a"), "trans_a") != 0;
  a.trans_b = json_int(j.at("trans_b"), "trans_b") != 0;
  a.alpha = json_double(j.at("alpha"), "alpha");
  a.beta = json_double(j.at("beta"), "beta");
  a.relu = json_int(j.at("relu"), "relu") != 0;
  a.gelu = json_int_or(j, "gelu", 0) != 0;
  a.b_block = json_int_or(j, "b_block", 0);
  a.b_columns = json_int_or(j, "b_columns", 0);
  a.b_bits = json_int_or(j, "b_bits", 0);
  a.b_group = json_int_or(j, "b_group", 0);
  a.a_bits = json_int_or(j, "a_bits", 0);
  stored->bias = json_int(j.at("bias"), "bias") != 0;
  return stored;
}

// Checks a quantized B's panels and their scales against the product's K (nee::Error).
void check_quantized_b(const TensorType& b, const TensorType& b_scales, const MatmulAttrs& attrs) {
  if (attrs.b_bits != 4 && attrs.b_bits != 8) {
    throw Error(fmt::format("quantized matmul weights hold 4 or 8 bits, not {}", attrs.b_bits));
  }
  if (attrs.b_block == 0 || b.dtype != DType::u8) {
    throw Error(fmt::format("quantized matmul weights are u8 panels, got {} with b_block {}", b.to_string(),
                            attrs.b_block));
  }
  const int64_t k = matmul_logical_b_shape(b.shape, attrs)[0];
  const int64_t groups = attrs.b_group > 0 ? (k + attrs.b_group - 1) / attrs.b_group : 0;
  const std::vector<int64_t> scales_shape = {b.shape[0], groups, 2, attrs.b_block};
  if (attrs.b_group <= 0 || b_scales.dtype != DType::f32 || b_scales.shape != scales_shape) {
    throw Error(fmt::format("the scales of {} in groups of {} rows are f32[{}], got {}", b.to_string(),
                            attrs.b_group, fmt::join(scales_shape, ","), b_scales.to_string()));
  }
}

Workload build_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                               const MatmulAttrs& attrs);

// Checks an integer product's B panels, their multipliers and column sums, and A's scale and
// zero point (nee::Error).
void check_integer_operands(const TensorType& b, const TensorType& b_scales, const TensorType& a_scale,
                            const TensorType& a_zero, const MatmulAttrs& attrs) {
  if (attrs.a_bits != 8 || attrs.b_bits != 8 || attrs.b_group != 0 || attrs.b_block != kMatmulWeightPanel) {
    throw Error(fmt::format("an integer matmul has a_bits 8, b_bits 8, b_group 0 and b_block {}; got {}, {}, {}, {}",
                            kMatmulWeightPanel, attrs.a_bits, attrs.b_bits, attrs.b_group, attrs.b_block));
  }
  if (b.dtype != DType::i8 || b.shape.size() != 4 || b.shape[2] != attrs.b_block || b.shape[3] != 4) {
    throw Error(fmt::format("an integer matmul's B is i8 panels [N/{}, K/4, {}, 4], got {}", attrs.b_block,
                            attrs.b_block, b.to_string()));
  }
  const std::vector<int64_t> scales_shape = {b.shape[0], 2, attrs.b_block};
  if (b_scales.dtype != DType::f32 || b_scales.shape != scales_shape) {
    throw Error(fmt::format("the multipliers and column sums of {} are f32[{}], got {}", b.to_string(),
                            fmt::join(scales_shape, ","), b_scales.to_string()));
  }
  if (a_scale.dtype != DType::f32 || a_scale.elements() != 1 || a_scale.shape.size() > 1) {
    throw Error("an integer matmul's A scale is one f32, got " + a_scale.to_string());
  }
  if (a_zero.dtype != DType::u8 || a_zero.elements() != 1 || a_zero.shape.size() > 1) {
    throw Error("an integer matmul's A zero point is one u8, got " + a_zero.to_string());
  }
}

}  // namespace

Workload make_integer_matmul_workload(const TensorType& a, const TensorType& b, const TensorType& b_scales,
                                      const TensorType& a_scale, const TensorType& a_zero, const TensorType* c,
                                      const MatmulAttrs& attrs) {
  check_integer_operands(b, b_scales, a_scale, a_zero, attrs);
  if (attrs.trans_a || a.shape.size() < 2) throw Error("an integer matmul's A is untransposed, rank >= 2");
  // B's panels as build_matmul_workload checks them; matmul_logical_b_shape reads 4 rows a row.
  const TensorType b_as_float{DType::f32, {b.shape[0], b.shape[1], b.shape[2]}};
  Workload w = build_matmul_workload(a, b_as_float, c, attrs);
  w.inputs[1] = b;
  w.inputs.insert(w.inputs.begin() + 2, {b_scales, a_scale, a_zero});
  return w;
}

Workload make_quantized_matmul_workload(const TensorType& a, const TensorType& b, const TensorType& b_scales,
                                        const TensorType* c, const MatmulAttrs& attrs) {
  if (attrs.b_bits == 0 || attrs.a_bits != 0) throw Error("a quantized matmul workload needs b_bits, not a_bits");
  TensorType b_as_float = b;
  b_as_float.dtype = DType::f32;
  Workload w = build_matmul_workload(a, b_as_float, c, attrs);
  check_quantized_b(b, b_scales, attrs);
  w.inputs[1] = b;
  w.inputs.insert(w.inputs.begin() + 2, b_scales);
  return w;
}

Workload make_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                              const MatmulAttrs& attrs) {
  if (attrs.b_bits != 0 || attrs.a_bits != 0) {
    throw Error("a matmul by quantized weights is made by make_quantized_matmul_workload or "
                "make_integer_matmul_workload");
  }
  return build_matmul_workload(a, b, c, attrs);
}

namespace {

Workload build_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                               const MatmulAttrs& attrs) {
  for (const TensorType* t : {&a, &b, c}) {
    if (t && t->dtype != DType::f32) {
      throw Error("matmul kernels take f32 tensors, got " + t->to_string());
    }
  }
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    throw Error(fmt::format("matmul kernels need rank >= 2 operands, got {} and {}",
                            a.to_string(), b.to_string()));
  }
  if ((attrs.trans_a || attrs.trans_b) && (a.shape.size() != 2 || b.shape.size() != 2)) {
    throw Error("transposed operands are supported at rank 2 only (Gemm)");
  }
  const bool panels_malformed = attrs.b_block < 0 || attrs.trans_b || b.shape.size() != 3 || b.shape[2] != attrs.b_block;
  if (attrs.b_block != 0 && panels_malformed) {
    throw Error(fmt::format("a B packed in panels of {} columns is [N/{}, K, {}], not transposed; got {}",
                            attrs.b_block, attrs.b_block, attrs.b_block, b.to_string()));
  }
  if (attrs.b_columns != 0 &&
      (attrs.b_block == 0 || attrs.b_columns <= (b.shape[0] - 1) * attrs.b_block ||
       attrs.b_columns >= b.shape[0] * attrs.b_block)) {
    throw Error(fmt::format("b_columns {} must leave only the last of B's panels {} part filled", attrs.b_columns,
                            b.to_string()));
  }
  const std::vector<int64_t> logical_b = matmul_logical_b_shape(b.shape, attrs);
  const size_t ra = a.shape.size(), rb = logical_b.size();
  const int64_t m = attrs.trans_a ? a.shape[ra - 1] : a.shape[ra - 2];
  const int64_t ka = attrs.trans_a ? a.shape[ra - 2] : a.shape[ra - 1];
  const int64_t kb = attrs.trans_b ? logical_b[rb - 1] : logical_b[rb - 2];
  const int64_t n = attrs.trans_b ? logical_b[rb - 2] : logical_b[rb - 1];
  if (ka != kb) {
    throw Error(fmt::format("matmul inner dimensions differ: {} x {} (K {} vs {})", a.to_string(),
                            b.to_string(), ka, kb));
  }
  for (const TensorType* t : {&a, &b, c}) {
    if (!t) continue;
    for (int64_t d : t->shape) {
      if (d <= 0) throw Error("matmul operand " + t->to_string() + " has an empty dimension");
    }
  }
  std::vector<int64_t> batch = broadcast_shapes(
      std::vector<int64_t>(a.shape.begin(), a.shape.end() - 2),
      std::vector<int64_t>(logical_b.begin(), logical_b.end() - 2));
  std::vector<int64_t> out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  if (c) {
    const std::vector<int64_t> with_c = broadcast_shapes(out_shape, c->shape);
    if (with_c != out_shape) {
      throw Error(fmt::format("bias {} does not broadcast to the product's shape [{}]",
                              c->to_string(), fmt::join(out_shape, ",")));
    }
  }
  if (attrs.relu && attrs.gelu) throw Error("a matmul epilogue applies Relu or GELU, not both");
  Workload w;
  w.op = "matmul";
  auto stored = std::make_shared<StoredMatmulAttrs>();
  stored->attrs = attrs;
  if (!c) stored->attrs.beta = 0.0;
  stored->bias = c != nullptr;
  w.attrs = stored;
  w.inputs = {a, b};
  if (c) w.inputs.push_back(*c);
  w.output = TensorType{DType::f32, out_shape};
  return w;
}

}  // namespace

MatmulAttrs matmul_attrs(const Workload& w) { return w.attrs_as<StoredMatmulAttrs>().attrs; }

bool matmul_has_bias(const Workload& w) { return w.attrs_as<StoredMatmulAttrs>().bias; }

size_t matmul_bias_input(const MatmulAttrs& attrs) { return attrs.a_bits != 0 ? 5 : attrs.b_bits != 0 ? 3 : 2; }

DType matmul_operand_dtype(const MatmulAttrs& attrs, size_t index) {
  if (attrs.a_bits != 0 && index == 1) return DType::i8;
  if (attrs.a_bits != 0 && index == 4) return DType::u8;
  if (attrs.a_bits == 0 && attrs.b_bits != 0 && index == 1) return DType::u8;
  return DType::f32;
}

std::vector<int64_t> matmul_logical_b_shape(const std::vector<int64_t>& b_shape, const MatmulAttrs& attrs) {
  if (attrs.b_block == 0) return b_shape;
  const int64_t k = attrs.a_bits != 0 ? b_shape[1] * 4 : attrs.b_bits != 0 ? b_shape[1] * 8 / attrs.b_bits : b_shape[1];
  return {k, attrs.b_columns != 0 ? attrs.b_columns : b_shape[0] * attrs.b_block};
}

Workload matmul_workload_from_shape(const std::string& shape) {
  const std::optional<std::vector<int64_t>> parsed = parse_integer_list(shape);
  if (!parsed || std::any_of(parsed->begin(), parsed->end(), [](int64_t v) { return v <= 0; })) {
    throw Error("bad matmul shape '" + shape + "': expected MxKxN or BxMxKxN with positive sizes");
  }
  const std::vector<int64_t>& dims = *parsed;
  if (dims.size() != 3 && dims.size() != 4) {
    throw Error("bad matmul shape '" + shape + "': expected MxKxN or BxMxKxN");
  }
  std::vector<int64_t> batch(dims.begin(), dims.end() - 3);
  const int64_t m = dims[dims.size() - 3], k = dims[dims.size() - 2], n = dims.back();
  TensorType a{DType::f32, batch}, b{DType::f32, batch};
  a.shape.insert(a.shape.end(), {m, k});
  b.shape.insert(b.shape.end(), {k, n});
  return make_matmul_workload(a, b, nullptr, MatmulAttrs{});
}

Family matmul_family() {
  return {FamilyId::matmul,
          "matmul",
          [](const Workload& w) {
            const MatmulAttrs a = matmul_attrs(w);
            const auto& sa = w.inputs[0].shape;
            const int64_t k = a.trans_a ? sa[sa.size() - 2] : sa.back();
            return 2.0 * static_cast<double>(w.output.elements()) * static_cast<double>(k);
          },
          [](const Workload& w) {
            const auto& sa = w.inputs[0].shape;
            return matmul_attrs(w).trans_a ? sa[sa.size() - 2] : sa.back();
          },
          SpeedUnit::gflops,
          matmul_workload_from_shape,
          "MxKxN or BxMxKxN",
          {"alpha", "beta", "bias", "relu", "gelu"},
          2,
          matmul_attrs_from_json,
          [](const Workload& w) {
            const MatmulAttrs attrs = matmul_attrs(w);
            const size_t bias_input = matmul_bias_input(attrs);
            const bool bias = matmul_has_bias(w);
            require_input_count(w, bias_input + (bias ? 1 : 0));
            const TensorType* c = bias ? &w.inputs[bias_input] : nullptr;
            if (attrs.a_bits != 0) {
              return make_integer_matmul_workload(w.inputs[0], w.inputs[1], w.inputs[2], w.inputs[3], w.inputs[4], c,
                                                  attrs);
            }
            if (attrs.b_bits != 0) {
              return make_quantized_matmul_workload(w.inputs[0], w.inputs[1], w.inputs[2], c, attrs);
            }
            return make_matmul_workload(w.inputs[0], w.inputs[1], c, attrs);
          }};
}

}  // namespace nee
