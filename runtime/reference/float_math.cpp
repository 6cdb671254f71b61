#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>

#include "runtime/reference/reference_ops.h"
#include "runtime/reference/unary_kernel.h"

namespace nee {

namespace {

using FloatFn = std::function<float(float)>;
// An operator's function of one f32 value, given the node's attributes (the importer
// stores every default explicitly).
using FloatFnMaker = FloatFn (*)(const Attributes&);

template <float (*F)(float)>
FloatFn plain(const Attributes&) {
  return [](float x) { return F(x); };
}

float softplus(float x) { return std::log1p(std::exp(x)); }
float softsign(float x) { return x / (1.0f + std::fabs(x)); }
// Mish: x * tanh(softplus(x)).
float mish(float x) { return x * std::tanh(std::log1p(std::exp(x))); }
// ONNX's Round rounds halves to even, as nearbyint does in the default rounding mode.
float round_half_even(float x) { return std::nearbyint(x); }
float cosine(float x) { return std::cos(x); }
float sine(float x) { return std::sin(x); }
float tangent(float x) { return std::tan(x); }
float arc_cosine(float x) { return std::acos(x); }
float arc_sine(float x) { return std::asin(x); }
float arc_tangent(float x) { return std::atan(x); }
float hyperbolic_cosine(float x) { return std::cosh(x); }
float hyperbolic_sine(float x) { return std::sinh(x); }
float area_hyperbolic_sine(float x) { return std::asinh(x); }
float area_hyperbolic_cosine(float x) { return std::acosh(x); }
float area_hyperbolic_tangent(float x) { return std::atanh(x); }
float ceiling(float x) { return std::ceil(x); }
float floor_of(float x) { return std::floor(x); }

FloatFn elu(const Attributes& a) {
  const float alpha = a.get_float("alpha");
  return [alpha](float x) { return x >= 0.0f ? x : alpha * std::expm1(x); };
}

FloatFn selu(const Attributes& a) {
  const float alpha = a.get_float("alpha"), gamma = a.get_float("gamma");
  return [alpha, gamma](float x) { return gamma * (x > 0.0f ? x : alpha * std::expm1(x)); };
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
FloatFn celu(const Attributes& a) {
  const float alpha = a.get_float("alpha");
  return [alpha](float x) { return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha)); };
}

// Gelu: x * 0.5 * (1 + erf(x / sqrt(2))), or with approximate "tanh"
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
FloatFn gaussian_error_linear(const Attributes& a) {
  if (a.get_string("approximate", "none") == "tanh") {
    return [](float x) { return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x))); };
  }
  return [](float x) { return x * 0.5f * (1.0f + std::erf(x * 0.70710678f)); };
}

// Swish (opset 24): x * sigmoid(alpha * x).
FloatFn swish(const Attributes& a) {
  const float alpha = a.get_float("alpha", 1.0f);
  return [alpha](float x) { return x / (1.0f + std::exp(-alpha * x)); };
}

FloatFn thresholded_relu(const Attributes& a) {
  const float alpha = a.get_float("alpha");
  return [alpha](float x) { return x > alpha ? x : 0.0f; };
}

const std::unordered_map<std::string, FloatFnMaker>& float_functions() {
  static const std::unordered_map<std::string, FloatFnMaker> table = {
      {"Cos", plain<cosine>},
      {"Sin", plain<sine>},
      {"Tan", plain<tangent>},
      {"Acos", plain<arc_cosine>},
      {"Asin", plain<arc_sine>},
      {"Atan", plain<arc_tangent>},
      {"Cosh", plain<hyperbolic_cosine>},
      {"Sinh", plain<hyperbolic_sine>},
      {"Asinh", plain<area_hyperbolic_sine>},
      {"Acosh", plain<area_hyperbolic_cosine>},
      {"Atanh", plain<area_hyperbolic_tangent>},
      {"Ceil", plain<ceiling>},
      {"Floor", plain<floor_of>},
      {"Round", plain<round_half_even>},
      {"Softplus", plain<softplus>},
      {"Softsign", plain<softsign>},
      {"Mish", plain<mish>},
      {"Gelu", gaussian_error_linear},
      {"Swish", swish},
      {"Elu", elu},
      {"Selu", selu},
      {"Celu", celu},
      {"ThresholdedRelu", thresholded_relu},
  };
  return table;
}

// IsInf / IsNaN: a bool per f32 element.
template <typename Test>
ReferenceFn float_test_kernel(Test test) {
  return [test](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    bool* y = out[0]->data_as<bool>();
    for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = test(x[i]);
  };
}

}  // namespace

ReferenceFn make_reference_float_math(const Graph& graph, const Node& node) {
  const auto it = float_functions().find(node.op);
  if (it == float_functions().end()) return nullptr;
  return float_unary(graph, node, it->second(node.attrs));
}

ReferenceFn make_reference_is_inf(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  const bool positive = node.attrs.get_int("detect_positive") != 0;
  const bool negative = node.attrs.get_int("detect_negative") != 0;
  return float_test_kernel(
      [positive, negative](float x) { return std::isinf(x) && (x > 0 ? positive : negative); });
}

ReferenceFn make_reference_is_nan(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  return float_test_kernel([](float x) { return std::isnan(x); });
}

}  // namespace nee
