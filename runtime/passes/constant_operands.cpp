#include "runtime/passes/constant_operands.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace nee {

const Tensor* f32_constant(const Graph& graph, const std::string& value) {
  if (value.empty()) return nullptr;
  const Tensor* t = graph.constant(value);
  return t && t->dtype() == DType::f32 ? t : nullptr;
}

std::optional<float> scalar_f32_constant(const Graph& graph, const std::string& value) {
  const Tensor* t = f32_constant(graph, value);
  if (!t || t->elements() != 1) return std::nullopt;
  return *t->data_as<float>();
}

bool is_scalar_near(const Graph& graph, const std::string& value, float wanted) {
  const std::optional<float> v = scalar_f32_constant(graph, value);
  return v && std::fabs(*v - wanted) <= 1e-6f * std::fabs(wanted);
}

bool clip_bounds(const Graph& graph, const Node& clip, float& lo, float& hi) {
  lo = clip.attrs.get_float("min", -FLT_MAX);
  hi = clip.attrs.get_float("max", FLT_MAX);
  for (size_t i = 1; i < clip.inputs.size() && i < 3; ++i) {
    if (clip.inputs[i].empty()) continue;
    const std::optional<float> v = scalar_f32_constant(graph, clip.inputs[i]);
    if (!v) return false;
    (i == 1 ? lo : hi) = *v;
  }
  return lo <= hi;
}

std::string add_shape_constant(Graph& graph, const std::string& name, const std::vector<int64_t>& shape) {
  Tensor tensor(DType::i64, {static_cast<int64_t>(shape.size())});
  std::copy(shape.begin(), shape.end(), tensor.data_as<int64_t>());
  graph.add_constant(name, tensor);
  return name;
}

}  // namespace nee
