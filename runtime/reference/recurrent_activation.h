#pragma once
#include <string>
#include <vector>

namespace nee {

// One activation of an ONNX recurrent layer (RNN, GRU, LSTM): a function of the spec's
// list with the alpha and beta it takes (Affine, LeakyRelu, ThresholdedRelu, ScaledTanh,
// HardSigmoid, Elu).
struct RecurrentActivation {
  enum class Function { relu, tanh, sigmoid, affine, leaky_relu, thresholded_relu, scaled_tanh, hard_sigmoid, elu,
                        softsign, softplus };
  Function function = Function::tanh;
  float alpha = 0, beta = 0;
  float operator()(float x) const;
};

// Each activation of `names` with its parameters, taken in order from `alphas` and
// `betas` by the functions that take them (their defaults where the lists run out, as
// onnxruntime does). Throws nee::Error for a name that is not in the spec's list.
std::vector<RecurrentActivation> recurrent_activations(const std::vector<std::string>& names,
                                                       const std::vector<float>& alphas,
                                                       const std::vector<float>& betas);

}  // namespace nee
