// LinearAttention (opset 27): causal attention whose keys and values a recurrent state
// [d_k, d_v] per kv head accumulates (linear, gated, delta and gated-delta rules: Gated
// DeltaNet, Mamba-2-style decays, RetNet), for prefill (T > 1) and decode (T = 1).
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

// Inputs: query [B, T, Hq x d_k], key [B, T, Hkv x d_k], value [B, T, Hkv x d_v]; optional
// past_state [B, Hkv, d_k, d_v], decay [B, T, Hkv] or [B, T, Hkv x d_k] (gated rules
// only), beta [B, T, Hkv] or [B, T, 1] (delta rules only). Outputs: [B, T, Hq x d_v] and
// the state after the last token. Stored: update_rule (default gated_delta) and scale
// (1 / sqrt(d_k) where absent or 0).
std::vector<TensorType> import_linear_attention(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 6, node.outputs.size());
  if (node.outputs.empty() || node.outputs.size() > 2) {
    throw Error(fmt::format("expects 1 or 2 outputs, got {}", node.outputs.size()));
  }
  const TensorType& q = input_type(ctx, node, 0, {DType::f32});
  const TensorType& k = input_type(ctx, node, 1, {DType::f32});
  const TensorType& v = input_type(ctx, node, 2, {DType::f32});
  const int64_t q_heads = node.attrs.get_int("q_num_heads", 0), kv_heads = node.attrs.get_int("kv_num_heads", 0);
  if (q_heads <= 0 || kv_heads <= 0 || q_heads % kv_heads != 0) {
    throw Error(fmt::format("q_num_heads {} must be a positive multiple of kv_num_heads {}", q_heads, kv_heads));
  }
  if (q.shape.size() != 3 || k.shape.size() != 3 || v.shape.size() != 3) {
    throw Error(fmt::format("query {}, key {} and value {} must be [B, T, heads x head size]", q.to_string(),
                            k.to_string(), v.to_string()));
  }
  const int64_t batch = q.shape[0], tokens = q.shape[1];
  if (q.shape[2] % q_heads != 0 || v.shape[2] % kv_heads != 0) {
    throw Error(fmt::format("query {} and value {} must divide into {} and {} heads", q.to_string(), v.to_string(),
                            q_heads, kv_heads));
  }
  const int64_t d_k = q.shape[2] / q_heads, d_v = v.shape[2] / kv_heads;
  if (k.shape != std::vector<int64_t>{batch, tokens, kv_heads * d_k} || v.shape[0] != batch || v.shape[1] != tokens) {
    throw Error(fmt::format("key {} must be [{}, {}, {}] and value {} [{}, {}, {} x d_v]", k.to_string(), batch,
                            tokens, kv_heads * d_k, v.to_string(), batch, tokens, kv_heads));
  }
  const std::string rule = node.attrs.get_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    throw Error(fmt::format("update_rule '{}' is not one of linear, gated, delta, gated_delta", rule));
  }
  const bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
  if (has_input(node, 3)) {
    const TensorType& past = input_type(ctx, node, 3, {DType::f32});
    if (past.shape != std::vector<int64_t>{batch, kv_heads, d_k, d_v}) {
      throw Error(fmt::format("past_state {} must be [{}, {}, {}, {}]", past.to_string(), batch, kv_heads, d_k, d_v));
    }
  }
  if (has_input(node, 4) != gated) {
    throw Error(fmt::format("update_rule '{}' {} decay input", rule, gated ? "needs a" : "takes no"));
  }
  if (gated) {
    const TensorType& decay = input_type(ctx, node, 4, {DType::f32});
    if (decay.shape.size() != 3 || decay.shape[0] != batch || decay.shape[1] != tokens ||
        (decay.shape[2] != kv_heads && decay.shape[2] != kv_heads * d_k)) {
      throw Error(fmt::format("decay {} must be [{}, {}, {} or {}]", decay.to_string(), batch, tokens, kv_heads,
                              kv_heads * d_k));
    }
  }
  if (has_input(node, 5) != delta) {
    throw Error(fmt::format("update_rule '{}' {} beta input", rule, delta ? "needs a" : "takes no"));
  }
  if (delta) {
    const TensorType& beta = input_type(ctx, node, 5, {DType::f32});
    if (beta.shape.size() != 3 || beta.shape[0] != batch || beta.shape[1] != tokens ||
        (beta.shape[2] != kv_heads && beta.shape[2] != 1)) {
      throw Error(fmt::format("beta {} must be [{}, {}, {} or 1]", beta.to_string(), batch, tokens, kv_heads));
    }
  }
  const float scale = node.attrs.get_float("scale", 0.0f);
  node.attrs.set("scale", scale == 0.0f ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_k))) : scale);
  node.attrs.set("update_rule", rule);
  node.attrs.erase("chunk_size");  // a hint for chunked kernels; the result is the recurrence's
  std::vector<TensorType> out = {TensorType{DType::f32, {batch, tokens, q_heads * d_v}}};
  if (node.outputs.size() == 2) out.push_back(TensorType{DType::f32, {batch, kv_heads, d_k, d_v}});
  return out;
}

}  // namespace nee
