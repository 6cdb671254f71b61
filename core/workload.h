#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.h"

namespace nee {

struct TensorType {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;

  int64_t elements() const;
  std::string to_string() const;  // "f32[128,768]"
  bool operator==(const TensorType& other) const {
    return dtype == other.dtype && shape == other.shape;
  }
};

// One kernel instance to tune and run: an operator family, its attributes and static
// shapes. Two graph nodes that compute the same thing map to the same Workload, and so
// to the same key, in the tuner and in the runtime alike.
struct Workload {
  std::string op;        // operator family, e.g. "matmul"
  nlohmann::json attrs;  // family attributes; keys are sorted, so the key is canonical
  std::vector<TensorType> inputs;
  TensorType output;

  std::string key() const;   // canonical text, e.g. matmul(f32[4,8],f32[8,2])->f32[4,2]{...}
  std::string hash() const;  // first 16 hex digits of sha256(key)
  double flops() const;

  nlohmann::json to_json() const;
  static Workload from_json(const nlohmann::json& j);
};

// The matmul family covers ONNX MatMul (batched, broadcasting) and Gemm, with an
// optional fused epilogue: a bias added after the product, then a Relu or an Erf-based
// GELU (x * 0.5 * (1 + erf(x / sqrt(2)))).
// out = act(alpha * op(A) x op(B) + beta * C)
struct MatmulAttrs {
  bool trans_a = false;
  bool trans_b = false;
  double alpha = 1.0;
  double beta = 1.0;
  bool relu = false;
  bool gelu = false;  // the key holds "gelu" only when set, so older keys are unchanged
};

// Validates shapes and computes the output shape (ONNX broadcasting of batch dims and of
// C). Throws nee::Error naming the mismatch. A and B have rank >= 2; trans_a/trans_b
// are allowed only at rank 2 (Gemm).
Workload make_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                              const MatmulAttrs& attrs);
MatmulAttrs matmul_attrs(const Workload& w);
bool matmul_has_bias(const Workload& w);

// ONNX multidirectional broadcasting; throws nee::Error on mismatch.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// Parses "MxKxN" or "BxMxKxN" as used on the command line into a plain MatMul workload.
Workload matmul_workload_from_shape(const std::string& shape);

}  // namespace nee
