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
  AttentionFusion(Graph& graph, bool over_heads, bool through_head_transposes)
      : graph_(graph),
        over_heads_(over_heads),
        through_head_transposes_(through_head_transposes),
        nodes_(graph.nodes()),
        fused_away_(nodes_.size(), false) {
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
    const std::optional<size_t> out_at = sole_reading_transpose(weighted.outputs[0], {1, 0, 2});
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
  // With through_head_transposes (GraphOptions::attention_through_head_transposes),
  // sequence-major instead at B = 1 where Transposes by (0, 2, 1, 3) turn [1, S, H, D]
  // projections into Q and V (K^T by (0, 2, 3, 1)) for the products alone and one turns
  // the output back, as Hugging Face's attention exports: the kernel reads the projections
  // viewed as [S, H, D] and writes [S, H, Dv], and the four Transposes go.
  void fuse_over_heads(size_t scores_at, size_t softmax_at, size_t weighted_at) {
    const Node& scores = nodes_[scores_at];
    const Node& weighted = nodes_[weighted_at];
    const std::vector<int64_t>& q = graph_.type_of(scores.inputs[0]).shape;
    const std::vector<int64_t>& kt = graph_.type_of(scores.inputs[1]).shape;
    const std::vector<int64_t>& v = graph_.type_of(weighted.inputs[1]).shape;
    if (kt[0] != q[0] || v[0] != q[0] || kt[1] != q[1] || v[1] != q[1]) return;
    const bool masked = scores.inputs.size() > 2 && !scores.inputs[2].empty();
    std::vector<int64_t> mask;
    if (masked) {
      mask = mask_over_groups(graph_.type_of(scores.inputs[2]).shape, q[0], q[1]);
      if (mask.empty()) return;
    }
    std::optional<size_t> q_at, v_at, out_at;
    std::vector<size_t> k_chain;  // the Transposes from K's projection to K^T, first first
    if (through_head_transposes_ && q[0] == 1) {
      q_at = sole_transpose(scores.inputs[0], scores_at, {0, 2, 1, 3});
      v_at = sole_transpose(weighted.inputs[1], weighted_at, {0, 2, 1, 3});
      out_at = sole_reading_transpose(weighted.outputs[0], {0, 2, 1, 3});
      if (const std::optional<size_t> k_at = sole_transpose(scores.inputs[1], scores_at, {0, 2, 3, 1})) {
        k_chain = {*k_at};
      } else if (const std::optional<size_t> last_two = sole_transpose(scores.inputs[1], scores_at, {0, 1, 3, 2})) {
        // The heads' Transpose, then the last two dims' (`key.transpose(-1, -2)`), which
        // compose_transposes would only join later.
        const std::optional<size_t> heads = sole_transpose(nodes_[*last_two].inputs[0], *last_two, {0, 2, 1, 3});
        if (heads) k_chain = {*heads, *last_two};
      }
    }
    const bool sequence_major = q_at && !k_chain.empty() && v_at && out_at;
    const int64_t groups = q[0] * q[1];
    // The kernel's operands: [S, H, D], [T, H, D], [T, H, Dv] and [S, H, Dv] sequence-major,
    // [B H, S, D], [B H, D, T], [B H, T, Dv] and [B H, S, Dv] group-major.
    const std::vector<int64_t> q3 = sequence_major ? std::vector<int64_t>{q[2], q[1], q[3]}
                                                   : std::vector<int64_t>{groups, q[2], q[3]};
    const std::vector<int64_t> k3 = sequence_major ? std::vector<int64_t>{kt[3], kt[1], kt[2]}
                                                   : std::vector<int64_t>{groups, kt[2], kt[3]};
    const std::vector<int64_t> v3 = sequence_major ? std::vector<int64_t>{v[2], v[1], v[3]}
                                                   : std::vector<int64_t>{groups, v[2], v[3]};
    const std::vector<int64_t> out3 = sequence_major ? std::vector<int64_t>{q[2], q[1], v[3]}
                                                     : std::vector<int64_t>{groups, q[2], v[3]};
    AttentionAttrs attrs;
    attrs.layout = sequence_major ? AttentionLayout::sequence_major : AttentionLayout::group_major;
    attrs.scale = scores.attrs.get_float("alpha", 1.0f);
    attrs.mask_scale = masked ? scores.attrs.get_float("beta", 1.0f) : 1.0f;
    const TensorType mask_type{DType::f32, mask};
    try {
      make_attention_workload({DType::f32, q3}, {DType::f32, k3}, {DType::f32, v3}, masked ? &mask_type : nullptr,
                              attrs);
    } catch (const Error&) {
      return;
    }

    Node fused;
    fused.op = "NeeAttention";
    fused.name = scores.name + "_attention";
    const auto view = [&](const std::string& value, const std::vector<int64_t>& shape) {
      if (graph_.type_of(value).shape == shape) return value;
      views_.push_back(reshape_view(graph_, value, unique_value_name(graph_, value + ".groups"), shape));
      return views_.back().outputs[0];
    };
    const auto operand = [&](const std::string& value, std::optional<size_t> transpose) {
      return sequence_major ? nodes_[*transpose].inputs[0] : value;
    };
    const std::optional<size_t> k_first = k_chain.empty() ? std::nullopt : std::optional<size_t>(k_chain.front());
    fused.inputs = {view(operand(scores.inputs[0], q_at), q3), view(operand(scores.inputs[1], k_first), k3),
                    view(operand(weighted.inputs[1], v_at), v3)};
    if (masked) fused.inputs.push_back(view(scores.inputs[2], mask));
    const std::string out = sequence_major ? nodes_[*out_at].outputs[0] : weighted.outputs[0];
    const std::vector<int64_t> out_shape = graph_.type_of(out).shape;
    const std::string grouped = unique_value_name(graph_, out + ".groups");
    graph_.add_value(grouped, TensorType{DType::f32, out3});
    fused.outputs = {grouped};
    views_.push_back(reshape_view(graph_, grouped, out, out_shape));
    fused.attrs.set("layout", std::string(sequence_major ? "sgd" : "gsd"));
    fused.attrs.set("scale", static_cast<float>(attrs.scale));
    if (masked) fused.attrs.set("mask_scale", static_cast<float>(attrs.mask_scale));

    std::vector<size_t> gone = {scores_at, softmax_at};
    if (sequence_major) {
      gone.insert(gone.end(), {*q_at, *v_at});
      gone.insert(gone.end(), k_chain.begin(), k_chain.end());
      graph_.remove_value(weighted.outputs[0]);
      fused_away_[*out_at] = true;  // its output is the view's now
    }
    for (size_t i : gone) {
      fused_away_[i] = true;
      for (const std::string& value : nodes_[i].outputs) graph_.remove_value(value);
    }
    nodes_[weighted_at] = std::move(fused);
  }

  // The Transpose by `perm` that alone reads `value`.
  std::optional<size_t> sole_reading_transpose(const std::string& value, const std::vector<int64_t>& perm) {
    const std::optional<size_t> reader = sole_consumer(graph_, value);
    if (!reader || fused_away_[*reader] || nodes_[*reader].op != "Transpose" ||
        nodes_[*reader].attrs.get_ints("perm", {}) != perm) {
      return {};
    }
    return reader;
  }

  // Whether the attention family takes these operands (rank, shapes and mask), as the
  // runtime will read the node.
  bool family_covers(const Node& fused) const { return workload_of(graph_, fused).has_value(); }

  Graph& graph_;
  const bool over_heads_;
  const bool through_head_transposes_;
  std::vector<Node> views_;  // the Reshapes fuse_over_heads adds, once the fused nodes are gone
  std::vector<Node>& nodes_;
  std::vector<bool> fused_away_;
  std::map<std::string, size_t> producer_;
};

}  // namespace

void fuse_attention(Graph& graph, bool over_heads, bool through_head_transposes) {
  AttentionFusion(graph, over_heads, through_head_transposes).run();
}

}  // namespace nee
