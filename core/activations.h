#pragma once
#include <cmath>

namespace nee {

// Scalar reference forms of the fused activations, shared by the plain-loop references
// (tuner/measure, runtime/reference) so both compute exactly what ONNX's decomposed
// operators compute.

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// x * sigmoid(x), as PyTorch exports SiLU.
inline float silu(float x) { return x * sigmoid(x); }

// HardSigmoid with alpha 1/6 and beta 0.5, PyTorch's Hardsigmoid and the constants of
// ONNX's HardSwish: max(0, min(1, x / 6 + 0.5)).
inline float hard_sigmoid(float x) { return std::fmax(0.0f, std::fmin(1.0f, x * (1.0f / 6.0f) + 0.5f)); }

// x * hard_sigmoid(x), as ONNX's HardSwish, and PyTorch's Hardswish exported before opset 14.
inline float hard_swish(float x) { return x * hard_sigmoid(x); }

// Erf-based GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2))).
inline float gelu(float x) { return x * (1.0f + std::erf(x / 1.41421356f)) * 0.5f; }

}  // namespace nee
