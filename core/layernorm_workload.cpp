#include "core/layernorm_workload.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"

namespace nee {

namespace {

// A layernorm workload's first normalized dim (non-negative), epsilon, whether it has a
// bias, and whether it normalizes by the root mean square (held in the key only when
// set, so the keys of layer norms are unchanged).
struct StoredLayernormAttrs final : WorkloadAttrs {
  int64_t axis = 0;
  double epsilon = 0;
  bool bias = false;
  bool rms = false;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"axis", axis}, {"epsilon", epsilon}, {"bias", bias ? 1 : 0}};
    if (rms) j["rms"] = 1;
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> layernorm_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredLayernormAttrs>();
  stored->axis = json_int(j.at("axis"), "axis");
  stored->epsilon = json_double(j.at("epsilon"), "epsilon");
  stored->bias = json_int(j.at("bias"), "bias") != 0;
  stored->rms = json_int_or(j, "rms", 0) != 0;
  return stored;
}

}  // namespace

Workload make_layernorm_workload(const TensorType& x, const TensorType& scale, const TensorType* bias,
                                 int64_t axis, double epsilon, bool rms) {
  for (const TensorType* t : {&x, &scale, bias}) {
    if (t && t->dtype != DType::f32) throw Error("layernorm kernels take f32 tensors, got " + t->to_string());
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw Error("layernorm needs a tensor of rank >= 1");
  if (axis < -rank || axis >= rank) {
    throw Error(fmt::format("layernorm axis {} is out of range for {}", axis, x.to_string()));
  }
  if (axis < 0) axis += rank;
  for (int64_t d : x.shape) {
    if (d <= 0) throw Error("layernorm input " + x.to_string() + " has an empty dimension");
  }
  if (!(epsilon >= 0)) throw Error(fmt::format("layernorm epsilon {} must not be negative", epsilon));
  const std::vector<int64_t> row(x.shape.begin() + axis, x.shape.end());
  for (const TensorType* t : {&scale, bias}) {
    if (!t) continue;
    bool fits = t->shape.size() <= row.size();
    if (fits) {
      try {
        fits = broadcast_shapes(row, t->shape) == row;
      } catch (const Error&) {
        fits = false;
      }
    }
    if (!fits) {
      throw Error(fmt::format("layernorm {} {} does not broadcast to the row shape of {} from axis {}",
                              t == &scale ? "scale" : "bias", t->to_string(), x.to_string(), axis));
    }
  }
  Workload w;
  w.op = "layernorm";
  auto stored = std::make_shared<StoredLayernormAttrs>();
  stored->axis = axis;
  stored->epsilon = epsilon;
  stored->bias = bias != nullptr;
  stored->rms = rms;
  w.attrs = stored;
  w.inputs = {x, scale};
  if (bias) w.inputs.push_back(*bias);
  w.output = x;
  return w;
}

int64_t layernorm_axis(const Workload& w) { return w.attrs_as<StoredLayernormAttrs>().axis; }
double layernorm_epsilon(const Workload& w) { return w.attrs_as<StoredLayernormAttrs>().epsilon; }
bool layernorm_has_bias(const Workload& w) { return w.attrs_as<StoredLayernormAttrs>().bias; }
bool layernorm_is_rms(const Workload& w) { return w.attrs_as<StoredLayernormAttrs>().rms; }

int64_t layernorm_row_length(const Workload& w) {
  const auto& shape = w.inputs[0].shape;
  int64_t n = 1;
  for (size_t d = static_cast<size_t>(layernorm_axis(w)); d < shape.size(); ++d) n *= shape[d];
  return n;
}

Workload layernorm_workload_from_shape(const std::string& text) {
  const ShapeText parsed("layernorm", text, {"axis", "epsilon", "bias", "rms"});
  const TensorType x{DType::f32, parsed.shape()};
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = parsed.integer("axis", -1);
  if (axis < -rank || axis >= rank) parsed.refuse(fmt::format("axis {} is out of range for rank {}", axis, rank));
  // Scale and bias are per element of the normalized row, as exporters write them.
  const TensorType row{DType::f32, {x.shape.begin() + (axis < 0 ? axis + rank : axis), x.shape.end()}};
  const bool bias = parsed.choice("bias", "1", {"0", "1"}) == "1";
  const bool rms = parsed.choice("rms", "0", {"0", "1"}) == "1";
  return make_layernorm_workload(x, row, bias ? &row : nullptr, axis, parsed.number("epsilon", 1e-5), rms);
}

Family layernorm_family() {
  // Per element: two sums, the centering, the square, the normalizing multiply, scale and
  // bias.
  return {FamilyId::layernorm,
          "layernorm",
          [](const Workload& w) { return 7.0 * static_cast<double>(w.output.elements()); },
          layernorm_row_length,
          SpeedUnit::gflops,
          layernorm_workload_from_shape,
          "DxDx...xD[,axis=A][,epsilon=E][,bias=0|1][,rms=0|1] (the input shape; rows are the dims from axis on, "
          "default -1; epsilon default 1e-5; a per-row-element scale, and a bias unless bias=0; rms=1 normalizes "
          "by the root mean square (RMSNorm); e.g. 128x768)",
          {"bias", "epsilon"},
          1,
          layernorm_attrs_from_json,
          [](const Workload& w) {
            const bool bias = layernorm_has_bias(w);
            require_input_count(w, bias ? 3 : 2);
            return make_layernorm_workload(w.inputs[0], w.inputs[1], bias ? &w.inputs[2] : nullptr,
                                           layernorm_axis(w), layernorm_epsilon(w), layernorm_is_rms(w));
          }};
}

}  // namespace nee
