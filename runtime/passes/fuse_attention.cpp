#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attention_workload.h"
#include "core/error.h"
#include "runtime/node_workload.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// A NeeMatMul of two operands of rank 3 (or, with `heads`, both of rank 4) with nothing but
// alpha and an optional C: what the attention's two products are after convert_matmul,
// fold_matmul_scale and fuse_matmul_add.
bool plain_batched_product(const Graph& graph, const Node& node, bool heads) {
  if (node.op != "NeeMatMul" || node.attrs.get_int("trans_a", 0) || node.attrs.get_int("trans_b", 0) ||
      node.attrs.get_int("relu", 0) || node.attrs.get_int("gelu", 0) || node.attrs.get_int("b_block", 0)) {
    return false;
  }
  const size_t rank = graph.type_of(node.inputs[0]).shape.size();
  return graph.type_of(node.inputs[1]).shape.size() == rank && (rank == 3 || (heads && rank == 4));
}

// The mask's shape as the group-major kernel reads it for products over [batch, heads, ...]:
// its last two dims where every dim before them is 1 (a causal [1, 1, S, T] or [S, T]),
// [batch heads, S, T] where those dims are [batch, heads] (LeViT's learned bias per head,
// [1, H, S, T]); empty where the groups cannot read it so (a padding mask per batch
// [B, 1, 1, T], B > 1).
std::vector<int64_t> mask_over_groups(std::vector<int64_t> mask, int64_t batch, int64_t heads) {
  while (mask.size() < 4) mask.insert(mask.begin(), 1);
  if (mask.size() > 4) return {};
  if (mask[0] == 1 && mask[1] == 1) return {mask[2], mask[3]};
  if (mask[0] == batch && mask[1] == heads) return {batch * heads, mask[2], mask[3]};
  return {};
}

class AttentionFusion {
 public:
  AttentionFusion(Graph& graph, bool over_heads)
      : graph_(graph), over_heads_(over_heads), nodes_(graph.nodes()), fused_away_(nodes_.size(), false) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (const std::string& out : nodes_[i].outputs) producer_[out] = i;
    }
  }

  void run() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!fused_away_[i]) try_fuse(i);
    }
    erase_fused(graph_, fused_away_);
    for (Node& view : views_) graph_.add_node(std::move(view));
    if (!views_.empty()) graph_.sort_topologically();
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
    if (!plain_batched_product(graph_, scores, over_heads_)) return;
    const std::optional<size_t> softmax_at = sole_consumer(graph_, scores.outputs[0]);
    if (!softmax_at || fused_away_[*softmax_at]) return;
    const Node& softmax = nodes_[*softmax_at];
    const int64_t last_axis = static_cast<int64_t>(graph_.type_of(scores.inputs[0]).shape.size()) - 1;
    if (softmax.op != "Softmax" || softmax.attrs.get_int("coerce_2d", 0) ||
        softmax.attrs.get_int("axis", -1) != last_axis) {
      return;
    }
    const std::optional<size_t> weighted_at = sole_consumer(graph_, softmax.outputs[0]);
    if (!weighted_at || fused_away_[*weighted_at]) return;
    const Node& weighted = nodes_[*weighted_at];
    if (!plain_batched_product(graph_, weighted, over_heads_) || weighted.inputs[0] != softmax.outputs[0] ||
        weighted.inputs.size() > 2 || weighted.attrs.get_float("alpha", 1.0f) != 1.0f) {
      return;
    }
    if (last_axis == 3) {
      fuse_over_heads(scores_at, *softmax_at, *weighted_at);
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

  // Products over [B, H, S, D] (GraphOptions::fuse_attention_over_heads): the operands
  // viewed as [B H, S, D] and so on (Reshapes, no copies), the mask as mask_over_groups
  // reads it, the group-major kernel, and its output viewed back as [B, H, S, Dv]. The
  // operands' batch and head dims must match (no broadcasting between them).
  void fuse_over_heads(size_t scores_at, size_t softmax_at, size_t weighted_at) {
    const Node& scores = nodes_[scores_at];
    const Node& weighted = nodes_[weighted_at];
    const std::vector<int64_t>& q = graph_.type_of(scores.inputs[0]).shape;
    const std::vector<int64_t>& kt = graph_.type_of(scores.inputs[1]).shape;
    const std::vector<int64_t>& v = graph_.type_of(weighted.inputs[1]).shape;
    if (kt[0] != q[0] || v[0] != q[0] || kt[1] != q[1] || v[1] != q[1]) return;
    const int64_t groups = q[0] * q[1];
    const std::vector<int64_t> q3 = {groups, q[2], q[3]}, kt3 = {groups, kt[2], kt[3]}, v3 = {groups, v[2], v[3]};
    const bool masked = scores.inputs.size() > 2 && !scores.inputs[2].empty();
    std::vector<int64_t> mask;
    if (masked) {
      mask = mask_over_groups(graph_.type_of(scores.inputs[2]).shape, q[0], q[1]);
      if (mask.empty()) return;
    }
    AttentionAttrs attrs;
    attrs.scale = scores.attrs.get_float("alpha", 1.0f);
    attrs.mask_scale = masked ? scores.attrs.get_float("beta", 1.0f) : 1.0f;
    const TensorType mask_type{DType::f32, mask};
    try {
      make_attention_workload({DType::f32, q3}, {DType::f32, kt3}, {DType::f32, v3}, masked ? &mask_type : nullptr,
                              attrs);
    } catch (const Error&) {
      return;
    }

    Node fused;
    fused.op = "NeeAttention";
    fused.name = scores.name + "_attention";
    const auto view = [&](const std::string& value, const std::vector<int64_t>& shape) {
      if (graph_.type_of(value).shape == shape) return value;
      views_.push_back(reshape_node(graph_, value, unique_value_name(graph_, value + ".groups"), shape));
      return views_.back().outputs[0];
    };
    fused.inputs = {view(scores.inputs[0], q3), view(scores.inputs[1], kt3), view(weighted.inputs[1], v3)};
    if (masked) fused.inputs.push_back(view(scores.inputs[2], mask));
    const std::string out = weighted.outputs[0];
    const std::vector<int64_t> out_shape = graph_.type_of(out).shape;
    const std::string grouped = unique_value_name(graph_, out + ".groups");
    graph_.add_value(grouped, TensorType{DType::f32, {groups, out_shape[2], out_shape[3]}});
    fused.outputs = {grouped};
    views_.push_back(reshape_node(graph_, grouped, out, out_shape));
    fused.attrs.set("layout", std::string("gsd"));
    fused.attrs.set("scale", static_cast<float>(attrs.scale));
    if (masked) fused.attrs.set("mask_scale", static_cast<float>(attrs.mask_scale));

    for (size_t i : {scores_at, softmax_at}) {
      fused_away_[i] = true;
      for (const std::string& value : nodes_[i].outputs) graph_.remove_value(value);
    }
    nodes_[weighted_at] = std::move(fused);
  }

  // Whether the attention family takes these operands (rank, shapes and mask), as the
  // runtime will read the node.
  bool family_covers(const Node& fused) const { return workload_of(graph_, fused).has_value(); }

  Graph& graph_;
  const bool over_heads_;
  std::vector<Node> views_;  // the Reshapes fuse_over_heads adds, once the fused nodes are gone
  std::vector<Node>& nodes_;
  std::vector<bool> fused_away_;
  std::map<std::string, size_t> producer_;
};

}  // namespace

void fuse_attention(Graph& graph, bool over_heads) { AttentionFusion(graph, over_heads).run(); }

}  // namespace nee
