#include "core/layernorm_workload.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"

namespace nee {

Workload make_layernorm_workload(const TensorType& x, const TensorType& scale, const TensorType* bias,
                                 int64_t axis, double epsilon) {
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
  w.attrs = {{"axis", axis}, {"epsilon", epsilon}, {"bias", bias ? 1 : 0}};
  w.inputs = {x, scale};
  if (bias) w.inputs.push_back(*bias);
  w.output = x;
  return w;
}

int64_t layernorm_axis(const Workload& w) { return w.attrs.at("axis").get<int64_t>(); }
double layernorm_epsilon(const Workload& w) { return w.attrs.at("epsilon").get<double>(); }
bool layernorm_has_bias(const Workload& w) { return w.attrs.at("bias").get<int>() != 0; }

int64_t layernorm_row_length(const Workload& w) {
  const auto& shape = w.inputs[0].shape;
  int64_t n = 1;
  for (size_t d = static_cast<size_t>(layernorm_axis(w)); d < shape.size(); ++d) n *= shape[d];
  return n;
}

Family layernorm_family() {
  // Per element: two sums, the centering, the square, the normalizing multiply, scale and
  // bias.
  return {FamilyId::layernorm,
          "layernorm",
          [](const Workload& w) { return 7.0 * static_cast<double>(w.output.elements()); },
          layernorm_row_length,
          SpeedUnit::gflops,
          nullptr,
          "",
          {"bias", "epsilon"},
          1};
}

}  // namespace nee
