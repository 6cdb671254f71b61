#pragma once
#include <cmath>

namespace nee {

// Scalar reference forms of the fused activations, shared by the plain-loop references
// (tuner/measure, runtime/reference) so both compute exactly what ONNX's decomposed
// operators compute.

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// x * sigmoid(x), as PyTorch exports SiLU.
inline float silu(float x) { return x * sigmoid(x); }

// Erf-based GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2))).
inline float gelu(float x) { return x * (1.0f + std::erf(x / 1.41421356f)) * 0.5f; }

}  // namespace nee
