#include "core/attention_workload.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"

namespace nee {

namespace {

const char* layout_name(AttentionLayout layout) {
  return layout == AttentionLayout::group_major ? "gsd" : "sgd";
}

AttentionLayout layout_named(const std::string& name) {
  if (name == "gsd") return AttentionLayout::group_major;
  if (name == "sgd") return AttentionLayout::sequence_major;
  throw Error("attention layout '" + name + "' is not one of gsd, sgd");
}

struct StoredAttentionAttrs final : WorkloadAttrs {
  StoredAttentionAttrs(const AttentionAttrs& attrs, bool mask) : attrs(attrs), mask(mask) {}
  AttentionAttrs attrs;
  bool mask;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"layout", layout_name(attrs.layout)}, {"scale", attrs.scale}};
    if (mask) j["mask_scale"] = attrs.mask_scale;
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> attention_attrs_from_json(const nlohmann::json& j) {
  AttentionAttrs attrs;
  if (!j.at("layout").is_string()) throw Error("attention layout is not a string");
  attrs.layout = layout_named(j.at("layout").get<std::string>());
  attrs.scale = json_double(j.at("scale"), "scale");
  const bool mask = j.contains("mask_scale");
  if (mask) attrs.mask_scale = json_double(j.at("mask_scale"), "mask_scale");
  return std::make_shared<StoredAttentionAttrs>(attrs, mask);
}

void require_rank3_f32(const TensorType& t, const char* what) {
  if (t.dtype != DType::f32 || t.shape.size() != 3) {
    throw Error(fmt::format("attention's {} must be an f32 tensor of rank 3, got {}", what, t.to_string()));
  }
  for (int64_t d : t.shape) {
    if (d <= 0) throw Error(fmt::format("attention's {} {} has an empty dimension", what, t.to_string()));
  }
}

}  // namespace

Workload make_attention_workload(const TensorType& q, const TensorType& k, const TensorType& v,
                                 const TensorType* mask, const AttentionAttrs& attrs) {
  require_rank3_f32(q, "Q");
  require_rank3_f32(k, "K");
  require_rank3_f32(v, "V");
  const bool gsd = attrs.layout == AttentionLayout::group_major;
  // [G, S, D], [G, D, T], [G, T, Dv] or [S, G, D], [T, G, D], [T, G, Dv].
  const int64_t groups = gsd ? q.shape[0] : q.shape[1];
  const int64_t queries = gsd ? q.shape[1] : q.shape[0];
  const int64_t depth = q.shape[2];
  const int64_t keys = gsd ? k.shape[2] : k.shape[0];
  const bool k_fits = gsd ? k.shape[0] == groups && k.shape[1] == depth : k.shape[1] == groups && k.shape[2] == depth;
  const bool v_fits = gsd ? v.shape[0] == groups && v.shape[1] == keys : v.shape[1] == groups && v.shape[0] == keys;
  if (!k_fits || !v_fits) {
    throw Error(fmt::format("attention operands Q {}, K {}, V {} do not fit the {} layout ({})", q.to_string(),
                            k.to_string(), v.to_string(), layout_name(attrs.layout),
                            gsd ? "[G,S,D], [G,D,T], [G,T,Dv]" : "[S,G,D], [T,G,D], [T,G,Dv]"));
  }
  const int64_t value_depth = v.shape[2];
  Workload w;
  w.op = "attention";
  w.attrs = std::make_shared<StoredAttentionAttrs>(attrs, mask != nullptr);
  w.inputs = {q, k, v};
  if (mask) {
    if (mask->dtype != DType::f32 || mask->shape.empty() || mask->shape.size() > 3) {
      throw Error("attention mask must be f32 of rank 1 to 3, got " + mask->to_string());
    }
    const std::vector<int64_t> full = {groups, queries, keys};
    for (size_t i = 0; i < mask->shape.size(); ++i) {
      const int64_t d = mask->shape[mask->shape.size() - 1 - i];
      if (d != 1 && d != full[2 - i]) {
        throw Error("attention mask " + mask->to_string() + " does not broadcast to " +
                    TensorType{DType::f32, full}.to_string());
      }
    }
    w.inputs.push_back(*mask);
  }
  w.output = {DType::f32, gsd ? std::vector<int64_t>{groups, queries, value_depth}
                              : std::vector<int64_t>{queries, groups, value_depth}};
  return w;
}

AttentionAttrs attention_attrs(const Workload& w) { return w.attrs_as<StoredAttentionAttrs>().attrs; }

bool attention_has_mask(const Workload& w) { return w.attrs_as<StoredAttentionAttrs>().mask; }

AttentionDims attention_dims(const Workload& w) {
  const bool gsd = attention_attrs(w).layout == AttentionLayout::group_major;
  const auto& q = w.inputs[0].shape;
  const auto& k = w.inputs[1].shape;
  return {gsd ? q[0] : q[1], gsd ? q[1] : q[0], gsd ? k[2] : k[0], q[2], w.inputs[2].shape[2]};
}

Workload attention_workload_from_shape(const std::string& text) {
  const ShapeText parsed("attention", text, {"dv", "layout", "scale", "mask", "mask_scale"});
  if (parsed.shape().size() != 4) parsed.refuse("the shape is GxSxTxD");
  const int64_t g = parsed.shape()[0], s = parsed.shape()[1], t = parsed.shape()[2], d = parsed.shape()[3];
  const int64_t dv = parsed.integer("dv", d);
  AttentionAttrs attrs;
  attrs.layout = layout_named(parsed.choice("layout", "gsd", {"gsd", "sgd"}));
  attrs.scale = parsed.number("scale", 1.0 / std::sqrt(static_cast<double>(d)));
  const std::string mask = parsed.choice("mask", "none", {"none", "causal", "rows"});
  attrs.mask_scale = parsed.number("mask_scale", 1.0);
  if (mask == "none" && parsed.has("mask_scale")) parsed.refuse("mask_scale needs a mask");
  const bool gsd = attrs.layout == AttentionLayout::group_major;
  const TensorType q{DType::f32, gsd ? std::vector<int64_t>{g, s, d} : std::vector<int64_t>{s, g, d}};
  const TensorType k{DType::f32, gsd ? std::vector<int64_t>{g, d, t} : std::vector<int64_t>{t, g, d}};
  const TensorType v{DType::f32, gsd ? std::vector<int64_t>{g, t, dv} : std::vector<int64_t>{t, g, dv}};
  const TensorType m{DType::f32, mask == "causal" ? std::vector<int64_t>{s, t} : std::vector<int64_t>{g, 1, t}};
  return make_attention_workload(q, k, v, mask == "none" ? nullptr : &m, attrs);
}

Family attention_family() {
  // Per score: a D-term dot product, the scaling and mask, the softmax's max, subtraction,
  // exp and sum; then a Dv-term product with V; and a division per output.
  const auto flops = [](const Workload& w) {
    const AttentionDims d = attention_dims(w);
    const double scores = static_cast<double>(d.groups * d.queries * d.keys);
    const double per_score = 2.0 * static_cast<double>(d.depth + d.value_depth) + 6.0;
    return scores * per_score + static_cast<double>(w.output.elements());
  };
  // The output sums T products, each weighted by a softmax over T scores of D terms.
  const auto reduction_length = [](const Workload& w) {
    const AttentionDims d = attention_dims(w);
    return d.keys + d.depth;
  };
  return {FamilyId::attention, "attention", flops, reduction_length, SpeedUnit::gflops, attention_workload_from_shape,
          "GxSxTxD[,dv=Dv][,layout=gsd|sgd][,scale=F][,mask=none|causal|rows][,mask_scale=F] (G groups of S "
          "queries over T keys of depth D; e.g. 6x197x197x64 or 4x64x64x64,layout=sgd,mask=causal)",
          {}, 0, attention_attrs_from_json, [](const Workload& w) {
            if (w.inputs.size() != 3 && w.inputs.size() != 4) {
              throw Error(fmt::format("attention takes Q, K, V and an optional mask, got {} inputs", w.inputs.size()));
            }
            if ((w.inputs.size() == 4) != attention_has_mask(w)) {
              throw Error("attention's mask input and mask_scale disagree");
            }
            return make_attention_workload(w.inputs[0], w.inputs[1], w.inputs[2],
                                           w.inputs.size() == 4 ? &w.inputs[3] : nullptr, attention_attrs(w));
          }};
}

}  // namespace nee
