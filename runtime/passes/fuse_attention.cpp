#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/node_workload.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// A NeeMatMul of two rank-3 operands with nothing but alpha and an optional C: what the
// attention's two products are after convert_matmul, fold_matmul_scale and
// fuse_matmul_add.
bool plain_batched_product(const Graph& graph, const Node& node) {
  if (node.op != "NeeMatMul" || node.attrs.get_int("trans_a", 0) || node.attrs.get_int("trans_b", 0) ||
      node.attrs.get_int("relu", 0) || node.attrs.get_int("gelu", 0) || node.attrs.get_int("b_block", 0)) {
    return false;
  }
  return graph.type_of(node.inputs[0]).shape.size() == 3 && graph.type_of(node.inputs[1]).shape.size() == 3;
}

class AttentionFusion {
 public:
  explicit AttentionFusion(Graph& graph) : graph_(graph), nodes_(graph.nodes()), fused_away_(nodes_.size(), false) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (const std::string& out : nodes_[i].outputs) producer_[out] = i;
    }
  }

  void run() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!fused_away_[i]) try_fuse(i);
    }
    erase_fused(graph_, fused_away_);
  }

 private:
  // The Transpose by `perm` that produces `value` for node `reader` alone.
  std::optional<size_t> sole_transpose(const std::string& value, size_t reader, const std::vector<int64_t>& perm) {
    const auto from = producer_.find(value);
    if (from == producer_.end() || fused_away_[from->second] || sole_consumer(graph_, value) != reader) return {};
    const Node& node = nodes_[from->second];
    if (node.op != "Transpose" || node.attrs.get_ints("perm", {}) != perm) return {};
    return from->second;
  }

  void try_fuse(size_t scores_at) {
    const Node& scores = nodes_[scores_at];
    if (!plain_batched_product(graph_, scores)) return;
    const std::optional<size_t> softmax_at = sole_consumer(graph_, scores.outputs[0]);
    if (!softmax_at || fused_away_[*softmax_at]) return;
    const Node& softmax = nodes_[*softmax_at];
    if (softmax.op != "Softmax" || softmax.attrs.get_int("coerce_2d", 0) || softmax.attrs.get_int("axis", -1) != 2) {
      return;
    }
    const std::optional<size_t> weighted_at = sole_consumer(graph_, softmax.outputs[0]);
    if (!weighted_at || fused_away_[*weighted_at]) return;
    const Node& weighted = nodes_[*weighted_at];
    if (!plain_batched_product(graph_, weighted) || weighted.inputs[0] != softmax.outputs[0] ||
        weighted.inputs.size() > 2 || weighted.attrs.get_float("alpha", 1.0f) != 1.0f) {
      return;
    }

    // Sequence-major when Transposes turn [S, G, D] operands into the products' and the
    // output back (torch.nn.MultiheadAttention): the kernel reads and writes through them.
    const std::optional<size_t> q_at = sole_transpose(scores.inputs[0], scores_at, {1, 0, 2});
    const std::optional<size_t> k_at = sole_transpose(scores.inputs[1], scores_at, {1, 2, 0});
    const std::optional<size_t> v_at = sole_transpose(weighted.inputs[1], *weighted_at, {1, 0, 2});
    const std::optional<size_t> out_consumer = sole_consumer(graph_, weighted.outputs[0]);
    std::optional<size_t> out_at;
    if (out_consumer && !fused_away_[*out_consumer] && nodes_[*out_consumer].op == "Transpose" &&
        nodes_[*out_consumer].attrs.get_ints("perm", {}) == std::vector<int64_t>{1, 0, 2}) {
      out_at = out_consumer;
    }
    const bool sequence_major = q_at && k_at && v_at && out_at;

    Node fused;
    fused.op = "NeeAttention";
    fused.name = scores.name + "_attention";
    const auto source = [&](const std::string& value, std::optional<size_t> transpose) {
      return sequence_major ? nodes_[*transpose].inputs[0] : value;
    };
    fused.inputs = {source(scores.inputs[0], q_at), source(scores.inputs[1], k_at),
                    source(weighted.inputs[1], v_at)};
    const bool masked = scores.inputs.size() > 2 && !scores.inputs[2].empty();
    if (masked) fused.inputs.push_back(scores.inputs[2]);
    const size_t last = sequence_major ? *out_at : *weighted_at;
    fused.outputs = nodes_[last].outputs;
    fused.attrs.set("layout", std::string(sequence_major ? "sgd" : "gsd"));
    fused.attrs.set("scale", scores.attrs.get_float("alpha", 1.0f));
    if (masked) fused.attrs.set("mask_scale", scores.attrs.get_float("beta", 1.0f));
    if (!family_covers(fused)) return;

    std::vector<size_t> gone = {scores_at, *softmax_at, *weighted_at};
    if (sequence_major) gone.insert(gone.end(), {*q_at, *k_at, *v_at, *out_at});
    for (size_t i : gone) {
      if (i == last) continue;
      fused_away_[i] = true;
      for (const std::string& value : nodes_[i].outputs) graph_.remove_value(value);
    }
    // In the last node's place: every input of the pattern is produced before it.
    nodes_[last] = std::move(fused);
  }

  // Whether the attention family takes these operands (rank, shapes and mask), as the
  // runtime will read the node.
  bool family_covers(const Node& fused) const { return workload_of(graph_, fused).has_value(); }

  Graph& graph_;
  std::vector<Node>& nodes_;
  std::vector<bool> fused_away_;
  std::map<std::string, size_t> producer_;
};

}  // namespace

void fuse_attention(Graph& graph) { AttentionFusion(graph).run(); }

}  // namespace nee
