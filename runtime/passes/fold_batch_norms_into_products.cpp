#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// A NeeMatMul by a constant 2-D W [K, C] (not transposed), without an activation, whose
// bias, if any, is a constant over its columns added once: each of its columns can take a
// scale and a shift.
bool scales_by_column(const Graph& graph, const Node& node) {
  if (node.op != "NeeMatMul" || node.attrs.get_int("trans_b", 0) || node.attrs.get_int("relu", 0) ||
      node.attrs.get_int("gelu", 0)) {
    return false;
  }
  const Tensor* w = f32_constant(graph, node.inputs[1]);
  if (!w || w->shape().size() != 2) return false;
  if (node.inputs.size() < 3 || node.inputs[2].empty()) return true;
  const Tensor* bias = f32_constant(graph, node.inputs[2]);
  const int64_t columns = w->shape()[1];
  return bias && bias->elements() == columns && bias->shape().back() == columns &&
         node.attrs.get_float("beta", 1.0f) == 1.0f;
}

}  // namespace

void fold_batch_norms_into_products(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  std::vector<std::string> replaced;  // constants the folded nodes read
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& bn = nodes[i];
    if (bn.op != "BatchNormalization" || bn.inputs.empty()) continue;
    const TensorType& x = graph.type_of(bn.inputs[0]);
    if (x.dtype != DType::f32 || x.shape.size() != 2 || sole_consumer(graph, bn.inputs[0]) != i) continue;
    const int64_t channels = x.shape[1];
    // The product, read directly or through Reshapes or Flattens of its rows that keep the
    // columns, each the sole reader of what it reads.
    const Node* view = nullptr;
    const Node* found = graph.producer(bn.inputs[0]);
    while (found && (found->op == "Reshape" || found->op == "Flatten") &&
           !fused_away[static_cast<size_t>(found - nodes.data())]) {
      const std::string& source = found->inputs[0];
      if (graph.type_of(source).shape.back() != channels ||
          sole_consumer(graph, source) != static_cast<size_t>(found - nodes.data())) {
        found = nullptr;
        break;
      }
      if (!view) view = found;
      found = graph.producer(source);
    }
    if (!found || !scales_by_column(graph, *found)) continue;
    const size_t p = static_cast<size_t>(found - nodes.data());
    if (fused_away[p] || graph.type_of(nodes[p].outputs[0]).shape.back() != channels) continue;
    const std::optional<BatchNormAffine> affine = inference_batch_norm(graph, bn, channels);
    if (!affine) continue;

    // (A x W + b) * s + t = A x (W * s) + (b * s + t), s and t per column.
    Node& product = nodes[p];
    const Tensor& w = *f32_constant(graph, product.inputs[1]);
    const int64_t rows = w.shape()[0];
    Tensor scaled(DType::f32, w.shape()), bias(DType::f32, {channels});
    const float* from = w.data_as<float>();
    float* to = scaled.data_as<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < channels; ++c) to[r * channels + c] = from[r * channels + c] * affine->scale[c];
    }
    const bool biased = product.inputs.size() > 2 && !product.inputs[2].empty();
    const float* old_bias = biased ? f32_constant(graph, product.inputs[2])->data_as<float>() : nullptr;
    float* b = bias.data_as<float>();
    for (int64_t c = 0; c < channels; ++c) b[c] = (old_bias ? old_bias[c] * affine->scale[c] : 0.0f) + affine->shift[c];
    replaced.insert(replaced.end(), bn.inputs.begin() + 1, bn.inputs.end());
    replaced.insert(replaced.end(), product.inputs.begin() + 1, product.inputs.end());
    product.inputs.resize(3);
    product.inputs[1] = add_named_constant(graph, product.inputs[1] + ".bn_folded", scaled);
    product.inputs[2] = add_named_constant(graph, bn.name + ".bn_folded_bias", bias);
    product.attrs.set("beta", 1.0f);
    if (view) {
      Node reshaped = *view;
      reshaped.outputs = bn.outputs;
      fuse_chain(graph, fused_away, {view, &bn}, std::move(reshaped));
    } else {
      fuse_into_consumer(graph, fused_away, p, i, product);
    }
  }
  erase_fused(graph, fused_away);
  for (const std::string& name : replaced) remove_if_unread(graph, name);
}

}  // namespace nee
