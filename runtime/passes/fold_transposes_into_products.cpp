#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// A Transpose that swaps its input's last two dims and keeps the others in place.
bool swaps_last_two(const Graph& graph, const Node& node) {
  if (node.op != "Transpose") return false;
  const size_t rank = graph.type_of(node.inputs[0]).shape.size();
  if (rank < 2) return false;
  std::vector<int64_t> swap(rank);
  for (size_t d = 0; d < rank; ++d) swap[d] = static_cast<int64_t>(d);
  std::swap(swap[rank - 2], swap[rank - 1]);
  return node.attrs.get_ints("perm", {}) == swap;
}

// The constant bias of a product [..., C, S'] over its columns alone ([S'] or [1..., S']),
// or null.
const Tensor* bias_over_columns(const Graph& graph, const std::string& bias, int64_t columns) {
  const Tensor* c = f32_constant(graph, bias);
  return c && c->elements() == columns && !c->shape().empty() && c->shape().back() == columns ? c : nullptr;
}

}  // namespace

void fold_transposes_into_products(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  std::vector<std::string> replaced;  // constants the folded products read
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& product = nodes[i];
    if (product.op != "NeeMatMul" || product.attrs.get_int("trans_a", 0) || product.attrs.get_int("trans_b", 0)) {
      continue;
    }
    const Tensor* w = f32_constant(graph, product.inputs[1]);
    if (!w || w->shape().size() != 2) continue;
    const std::optional<size_t> after = sole_consumer(graph, product.outputs[0]);
    if (!after || fused_away[*after] || !swaps_last_two(graph, nodes[*after])) continue;
    const Node* transpose = graph.producer(product.inputs[0]);
    if (!transpose || fused_away[static_cast<size_t>(transpose - nodes.data())] ||
        !swaps_last_two(graph, *transpose) || sole_consumer(graph, product.inputs[0]) != i) {
      continue;
    }
    const bool biased = product.inputs.size() > 2 && !product.inputs[2].empty();
    const int64_t rows = w->shape()[0], columns = w->shape()[1];
    const Tensor* bias_in = biased ? bias_over_columns(graph, product.inputs[2], columns) : nullptr;
    if (biased && !bias_in) continue;

    // W^T [S', S] times X [..., S, C]: the product's transpose, with no copy of X or of it.
    Tensor wt(DType::f32, {columns, rows});
    const float* from = w->data_as<float>();
    float* to = wt.data_as<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < columns; ++c) to[c * rows + r] = from[r * columns + c];
    }
    replaced.insert(replaced.end(), product.inputs.begin() + 1, product.inputs.end());
    Node fused = product;
    fused.inputs[0] = add_named_constant(graph, product.inputs[1] + ".from_the_left", wt);
    fused.inputs[1] = transpose->inputs[0];
    fused.outputs = nodes[*after].outputs;
    if (biased) {
      Tensor bias(DType::f32, {columns, 1});
      std::copy(bias_in->data_as<float>(), bias_in->data_as<float>() + columns, bias.data_as<float>());
      fused.inputs[2] = add_named_constant(graph, product.inputs[2] + ".over_rows", bias);
    }
    fuse_chain(graph, fused_away, {transpose, &nodes[i], &nodes[*after]}, std::move(fused));
  }
  erase_fused(graph, fused_away);
  for (const std::string& name : replaced) remove_if_unread(graph, name);
}

}  // namespace nee
