#include "runtime/reference/recurrent_activation.h"

#include <cmath>
#include <map>

#include "core/error.h"

namespace nee {

namespace {

using Function = RecurrentActivation::Function;

struct Entry {
  Function function;
  bool takes_alpha, takes_beta;
  float alpha, beta;  // defaults
};

// The spec's activation functions and their default parameters (onnxruntime's, where
// the spec gives none: LeakyRelu 0.01, ThresholdedRelu 1, HardSigmoid 0.2 and 0.5, Elu 1).
const std::map<std::string, Entry>& functions() {
  static const std::map<std::string, Entry> table = {
      {"Relu", {Function::relu, false, false, 0, 0}},
      {"Tanh", {Function::tanh, false, false, 0, 0}},
      {"Sigmoid", {Function::sigmoid, false, false, 0, 0}},
      {"Affine", {Function::affine, true, true, 1, 0}},
      {"LeakyRelu", {Function::leaky_relu, true, false, 0.01f, 0}},
      {"ThresholdedRelu", {Function::thresholded_relu, true, false, 1, 0}},
      {"ScaledTanh", {Function::scaled_tanh, true, true, 1, 1}},
      {"HardSigmoid", {Function::hard_sigmoid, true, true, 0.2f, 0.5f}},
      {"Elu", {Function::elu, true, false, 1, 0}},
      {"Softsign", {Function::softsign, false, false, 0, 0}},
      {"Softplus", {Function::softplus, false, false, 0, 0}},
  };
  return table;
}

}  // namespace

float RecurrentActivation::operator()(float x) const {
  switch (function) {
    case Function::relu: return x > 0 ? x : 0;
    case Function::tanh: return std::tanh(x);
    case Function::sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Function::affine: return alpha * x + beta;
    case Function::leaky_relu: return x >= 0 ? x : alpha * x;
    case Function::thresholded_relu: return x > alpha ? x : 0;
    case Function::scaled_tanh: return alpha * std::tanh(beta * x);
    case Function::hard_sigmoid: return std::fmax(0.0f, std::fmin(1.0f, alpha * x + beta));
    case Function::elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
    case Function::softsign: return x / (1 + std::fabs(x));
    case Function::softplus: return std::log1p(std::exp(x));
  }
  return x;
}

std::vector<RecurrentActivation> recurrent_activations(const std::vector<std::string>& names,
                                                       const std::vector<float>& alphas,
                                                       const std::vector<float>& betas) {
  std::vector<RecurrentActivation> out;
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    auto it = functions().find(name);
    if (it == functions().end()) throw Error("'" + name + "' is not an activation of the recurrent layers");
    const Entry& e = it->second;
    RecurrentActivation a{e.function, e.alpha, e.beta};
    if (e.takes_alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (e.takes_beta && next_beta < betas.size()) a.beta = betas[next_beta++];
    out.push_back(a);
  }
  return out;
}

}  // namespace nee
