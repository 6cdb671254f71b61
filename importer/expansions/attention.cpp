#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

std::string attention_dims_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// The extents the definition computes in: Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv,
// T, Dv], past keys P, total keys P + T.
struct AttentionExtents {
  bool three_d = false;
  int64_t batch = 0, q_heads = 0, kv_heads = 0, queries = 0, keys = 0, past = 0, head = 0, value_head = 0;
  int64_t total() const { return past + keys; }
};

// Which keys a query attends besides its mask: causal (key j <= i + offset) and the
// sliding window of opset 25 (i + offset - left <= j <= i + offset + right), where i is
// the query's row and offset the keys before the query block.
struct KeyWindow {
  bool causal = false;
  int64_t left = -1, right = -1;  // -1: that side unbounded
  bool any() const { return causal || left >= 0 || right >= 0; }
  bool allows(int64_t distance) const {  // distance = i + offset - j
    return !(causal && distance < 0) && !(left >= 0 && distance > left) && !(right >= 0 && -distance > right);
  }
};

int64_t heads_attribute(const Node& node, const char* name, int64_t hidden, const char* operand) {
  const int64_t heads = node.attrs.get_int(name, 0);
  if (heads <= 0) throw Error(fmt::format("3-D {} needs a positive '{}' attribute", operand, name));
  if (hidden % heads != 0) {
    throw Error(fmt::format("{}'s last dim {} is not a multiple of {} = {}", operand, hidden, name, heads));
  }
  return heads;
}

AttentionExtents extents_of(const Graph& graph, const Node& node) {
  const std::vector<int64_t>& q = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t>& k = graph.type_of(node.inputs[1]).shape;
  const std::vector<int64_t>& v = graph.type_of(node.inputs[2]).shape;
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4)) {
    throw Error(fmt::format("Q, K and V must all be 3-D or all 4-D; they have ranks {}, {} and {}", q.size(),
                            k.size(), v.size()));
  }
  AttentionExtents e;
  e.three_d = q.size() == 3;
  e.batch = q[0];
  if (e.three_d) {
    e.q_heads = heads_attribute(node, "q_num_heads", q[2], "Q");
    e.kv_heads = heads_attribute(node, "kv_num_heads", k[2], "K");
    if (v[2] % e.kv_heads != 0) {
      throw Error(fmt::format("V's last dim {} is not a multiple of kv_num_heads = {}", v[2], e.kv_heads));
    }
    e.queries = q[1];
    e.keys = k[1];
    e.head = q[2] / e.q_heads;
    e.value_head = v[2] / e.kv_heads;
    if (k[2] / e.kv_heads != e.head) {
      throw Error(fmt::format("Q's heads have {} elements and K's {}", e.head, k[2] / e.kv_heads));
    }
    if (v[1] != e.keys) throw Error(fmt::format("K has {} keys and V {}", e.keys, v[1]));
  } else {
    e.q_heads = q[1];
    e.kv_heads = k[1];
    e.queries = q[2];
    e.keys = k[2];
    e.head = q[3];
    e.value_head = v[3];
    for (const char* name : {"q_num_heads", "kv_num_heads"}) {
      const int64_t given = node.attrs.get_int(name, 0);
      const int64_t actual = std::string(name) == "q_num_heads" ? e.q_heads : e.kv_heads;
      if (given != 0 && given != actual) {
        throw Error(fmt::format("'{}' is {} but the 4-D operand has {} heads", name, given, actual));
      }
    }
    if (k[3] != e.head) throw Error(fmt::format("Q's heads have {} elements and K's {}", e.head, k[3]));
    if (v[1] != e.kv_heads || v[2] != e.keys) {
      throw Error(
          fmt::format("V {} does not match K's {} heads of {} keys", attention_dims_text(v), e.kv_heads, e.keys));
    }
  }
  if (k[0] != e.batch || v[0] != e.batch) {
    throw Error(fmt::format("Q, K and V have batches {}, {} and {}", e.batch, k[0], v[0]));
  }
  if (e.q_heads % e.kv_heads != 0) {
    throw Error(fmt::format("Q's {} heads are not a multiple of K's and V's {}", e.q_heads, e.kv_heads));
  }
  return e;
}

class AttentionExpansion {
 public:
  AttentionExpansion(Graph& graph, const Node& node) : graph_(graph), node_(node), build_(graph, node.name) {}

  std::vector<Node> run() {
    if (node_.inputs.size() < 3 || node_.inputs[0].empty() || node_.inputs[1].empty() || node_.inputs[2].empty()) {
      throw Error("Q, K and V are required");
    }
    dtype_ = graph_.type_of(node_.inputs[0]).dtype;
    if (!is_floating(dtype_)) throw Error(fmt::format("Q has dtype {}; Attention takes floats", to_string(dtype_)));
    for (size_t i = 1; i < 3; ++i) {
      if (graph_.type_of(node_.inputs[i]).dtype != dtype_) {
        throw Error(fmt::format("input {} has dtype {}, Q {}", i, to_string(graph_.type_of(node_.inputs[i]).dtype),
                                to_string(dtype_)));
      }
    }
    e_ = extents_of(graph_, node_);
    window_.causal = node_.attrs.get_int("is_causal", 0) != 0;
    window_.left = node_.attrs.get_int("left_window_size", -1);
    window_.right = node_.attrs.get_int("right_window_size", -1);
    if (window_.left < -1 || window_.right < -1) throw Error("window sizes must be -1 or at least 0");
    const int64_t mode = node_.attrs.get_int("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3) throw Error(fmt::format("qk_matmul_output_mode {} is not 0 to 3", mode));
    const float softcap = node_.attrs.get_float("softcap", 0.0f);
    if (softcap < 0.0f) throw Error(fmt::format("softcap {} is negative", softcap));
    if (node_.attrs.has("softmax_precision")) check_softmax_precision();

    const std::string q = operand(0, "q");
    const std::string k = keys_with_past(operand(1, "k"), 4, "key", "k");
    const std::string v = keys_with_past(operand(2, "v"), 5, "value", "v");
    write_output(1, k, "present_key");
    write_output(2, v, "present_value");

    const std::string keys_t = build_.transpose("keys_t", grouped(k, "k"), {0, 1, 3, 2});
    const std::string scores = build_.add("MatMul", "scores", {q, keys_t});
    const double scale = node_.attrs.has("scale") ? node_.attrs.get_float("scale")
                                                  : 1.0 / std::sqrt(static_cast<double>(e_.head));
    const std::string scaled =
        build_.add("Mul", "scaled", {scores, build_.float_scalar("scale", static_cast<float>(scale))});
    std::string capped = scaled;
    if (softcap > 0.0f) {
      const std::string cap = build_.float_scalar("softcap", softcap);
      const std::string over_cap = build_.add("Div", "over_cap", {scaled, cap});
      capped = build_.add("Mul", "capped", {build_.add("Tanh", "tanh", {over_cap}), cap});
    }
    const std::string bias = key_bias();
    const std::string biased = bias.empty() ? capped : build_.add("Add", "biased", {capped, bias});
    Attributes last_axis;
    last_axis.set("axis", int64_t{3});
    const std::string probs = build_.add("Softmax", "probs", {biased}, last_axis);
    // A query whose every key the bias takes away gets zeros (the operator's errata), not
    // the NaN of a softmax over -inf alone.
    const std::string dead = bias.empty() ? "" : dead_rows(bias);
    const std::string guarded_probs = dead.empty() ? probs : guard("probs_guarded", dead, probs);
    const std::string product = build_.add("MatMul", "product", {probs, grouped(v, "v")});
    std::string y = dead.empty() ? product : guard("product_guarded", dead, product);
    if (e_.three_d) {
      y = build_.reshape("y_rows", build_.transpose("y_heads_last", y, {0, 2, 1, 3}),
                         {e_.batch, e_.queries, e_.q_heads * e_.value_head});
    }
    write_output(0, y, "y");
    const std::string qk_outputs[] = {scaled, capped, biased, guarded_probs};
    write_output(3, qk_outputs[mode], "qk_matmul_output");
    return build_.take();
  }

 private:
  void check_softmax_precision() const {
    // TensorProto's FLOAT, FLOAT16, BFLOAT16 and DOUBLE: the expansion computes in f32 and
    // takes any of them as asking for no less than the inputs' precision.
    const int64_t precision = node_.attrs.get_int("softmax_precision");
    if (precision != 1 && precision != 10 && precision != 16 && precision != 11) {
      throw Error(fmt::format("softmax_precision {} is not a float type", precision));
    }
  }

  // Input `index` in f32, and 4-D [B, heads, rows, head] for Q, K and V.
  std::string operand(size_t index, const std::string& label) {
    std::string value = node_.inputs[index];
    if (dtype_ != DType::f32) value = build_.cast(label + "_f32", value, DType::f32);
    if (!e_.three_d) return value;
    const int64_t heads = index == 0 ? e_.q_heads : e_.kv_heads;
    const int64_t rows = index == 0 ? e_.queries : e_.keys;
    const int64_t width = index == 2 ? e_.value_head : e_.head;
    return build_.transpose(label + "_heads", build_.reshape(label + "_split", value, {e_.batch, rows, heads, width}),
                            {0, 2, 1, 3});
  }

  // The cache `past` (input `index`) before the new keys or values: present_key and
  // present_value.
  std::string keys_with_past(const std::string& fresh, size_t index, const char* what, const std::string& label) {
    const std::string& past = optional_name(node_.inputs, index);
    const std::string& other = optional_name(node_.inputs, index == 4 ? 5 : 4);
    if (past.empty() != other.empty()) throw Error("past_key and past_value must be given together");
    if (past.empty()) return fresh;
    if (!optional_name(node_.inputs, 6).empty()) {
      throw Error("nonpad_kv_seqlen cannot be given with past_key and past_value");
    }
    const TensorType& type = graph_.type_of(past);
    const int64_t width = index == 4 ? e_.head : e_.value_head;
    if (type.dtype != dtype_) {
      throw Error(fmt::format("past_{} has dtype {}, Q {}", what, to_string(type.dtype), to_string(dtype_)));
    }
    if (type.shape.size() != 4 || type.shape[0] != e_.batch || type.shape[1] != e_.kv_heads || type.shape[3] != width) {
      throw Error(fmt::format("past_{} is {}; it must be [{}, {}, past keys, {}]", what,
                              attention_dims_text(type.shape), e_.batch, e_.kv_heads, width));
    }
    if (index == 4) {
      e_.past = type.shape[2];
    } else if (type.shape[2] != e_.past) {
      throw Error(fmt::format("past_key holds {} keys and past_value {}", e_.past, type.shape[2]));
    }
    std::string cached = past;
    if (dtype_ != DType::f32) cached = build_.cast("past_" + label + "_f32", past, DType::f32);
    Attributes along_keys;
    along_keys.set("axis", int64_t{2});
    return build_.add("Concat", "present_" + label, {cached, fresh}, along_keys);
  }

  // K or V with each of its heads repeated for the query heads it serves.
  std::string grouped(const std::string& value, const std::string& label) {
    const int64_t repeats = e_.q_heads / e_.kv_heads;
    if (repeats == 1) return value;
    const int64_t width = label == "k" ? e_.head : e_.value_head;
    const std::string one_more =
        build_.reshape(label + "_group_axis", value, {e_.batch, e_.kv_heads, 1, e_.total(), width});
    const std::string repeated = build_.add(
        "Expand", label + "_grouped",
        {one_more, build_.int64s(label + "_grouped_shape", {e_.batch, e_.kv_heads, repeats, e_.total(), width})});
    return build_.reshape(label + "_q_heads", repeated, {e_.batch, e_.q_heads, e_.total(), width});
  }

  // The sum of the additive biases on the scores: the mask's, the causal and window
  // masks', the per-batch key lengths'. Empty when there is none.
  std::string key_bias() {
    std::vector<std::string> parts;
    const std::string& mask = optional_name(node_.inputs, 3);
    if (!mask.empty()) parts.push_back(mask_bias(mask));
    const std::string& lengths = optional_name(node_.inputs, 6);
    if (!lengths.empty()) check_lengths(lengths);
    if (window_.any()) parts.push_back(lengths.empty() ? fixed_window_bias() : window_bias_by_batch(lengths));
    if (!lengths.empty()) parts.push_back(padding_bias(lengths));
    if (parts.empty()) return "";
    std::string sum = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) sum = build_.add("Add", fmt::format("bias_{}", i), {sum, parts[i]});
    return sum;
  }

  std::string mask_bias(const std::string& mask) {
    const TensorType& type = graph_.type_of(mask);
    if (type.dtype != DType::boolean && type.dtype != dtype_) {
      throw Error(fmt::format("attn_mask has dtype {}; it must be bool or Q's {}", to_string(type.dtype),
                              to_string(dtype_)));
    }
    if (type.shape.empty() || type.shape.size() > 4) {
      throw Error(fmt::format("attn_mask has rank {}; it must broadcast to 4-D scores", type.shape.size()));
    }
    const int64_t columns = type.shape.back();
    if (columns > e_.total()) {
      throw Error(fmt::format("attn_mask has {} columns for {} keys", columns, e_.total()));
    }
    std::string bias = mask;
    if (type.dtype == DType::boolean) {
      bias = build_.add("Where", "mask_bias", {mask, zero(), minus_infinity()});
    } else if (dtype_ != DType::f32) {
      bias = build_.cast("mask_f32", mask, DType::f32);
    }
    if (columns == e_.total()) return bias;
    // A mask shorter than the keys leaves out the last ones.
    std::vector<int64_t> pads(2 * type.shape.size(), 0);
    pads[2 * type.shape.size() - 1] = e_.total() - columns;
    Attributes constant_mode;
    constant_mode.set("mode", std::string("constant"));
    return build_.add("Pad", "mask_padded", {bias, build_.int64s("mask_pads", pads), minus_infinity()}, constant_mode);
  }

  void check_lengths(const std::string& lengths) const {
    const TensorType& type = graph_.type_of(lengths);
    if (type.dtype != DType::i64 || type.shape != std::vector<int64_t>{e_.batch}) {
      throw Error(fmt::format("nonpad_kv_seqlen is {} {}; it must be int64 [{}]", to_string(type.dtype),
                              attention_dims_text(type.shape), e_.batch));
    }
  }

  // [S, P + T] of 0 and -inf: the causal and window masks when the offset is the cache's
  // length, the same for every batch.
  std::string fixed_window_bias() {
    std::vector<float> bias(static_cast<size_t>(e_.queries * e_.total()));
    for (int64_t i = 0; i < e_.queries; ++i) {
      bool attends = false;
      for (int64_t j = 0; j < e_.total(); ++j) {
        const bool allowed = window_.allows(i + e_.past - j);
        attends = attends || allowed;
        bias[static_cast<size_t>(i * e_.total() + j)] = allowed ? 0.0f : kMinusInfinity;
      }
      fixed_rows_die_ = fixed_rows_die_ || !attends;
    }
    return build_.float_tensor("window_bias", {e_.queries, e_.total()}, bias);
  }

  // [B, 1, S, T]: the causal and window masks of a static cache, whose offset for batch
  // b is nonpad_kv_seqlen[b] - S.
  std::string window_bias_by_batch(const std::string& lengths) {
    std::vector<int64_t> row_minus_column(static_cast<size_t>(e_.queries * e_.total()));
    for (int64_t i = 0; i < e_.queries; ++i) {
      for (int64_t j = 0; j < e_.total(); ++j) {
        row_minus_column[static_cast<size_t>(i * e_.total() + j)] = i - j - e_.queries;
      }
    }
    const std::string distance = build_.add(
        "Add", "distance",
        {build_.int64_tensor("row_minus_column", {e_.queries, e_.total()}, row_minus_column),
         build_.reshape("lengths_by_batch", lengths, {e_.batch, 1, 1})});
    std::vector<std::string> conditions;
    if (window_.causal) {
      conditions.push_back(
          build_.add("GreaterOrEqual", "causal", {distance, build_.int64_tensor("zero_i64", {}, {0})}));
    }
    if (window_.left >= 0) {
      conditions.push_back(
          build_.add("LessOrEqual", "left", {distance, build_.int64_tensor("left_size", {}, {window_.left})}));
    }
    if (window_.right >= 0) {
      conditions.push_back(build_.add("GreaterOrEqual", "right",
                                      {distance, build_.int64_tensor("minus_right_size", {}, {-window_.right})}));
    }
    std::string allowed = conditions[0];
    for (size_t i = 1; i < conditions.size(); ++i) {
      allowed = build_.add("And", fmt::format("window_{}", i), {allowed, conditions[i]});
    }
    const std::string bias = build_.add("Where", "window_bias", {allowed, zero(), minus_infinity()});
    return build_.reshape("window_bias_4d", bias, {e_.batch, 1, e_.queries, e_.total()});
  }

  // [B, 1, 1, T]: -inf on the keys past each batch's length.
  std::string padding_bias(const std::string& lengths) {
    std::vector<int64_t> columns(static_cast<size_t>(e_.total()));
    for (int64_t j = 0; j < e_.total(); ++j) columns[static_cast<size_t>(j)] = j;
    const std::string lengths_column = build_.reshape("lengths_column", lengths, {e_.batch, 1});
    const std::string kept = build_.add("Less", "key_kept", {build_.int64s("key_index", columns), lengths_column});
    const std::string bias = build_.add("Where", "padding_bias", {kept, zero(), minus_infinity()});
    return build_.reshape("padding_bias_4d", bias, {e_.batch, 1, 1, e_.total()});
  }

  // The rows of `bias` that are -inf throughout, or empty when none can be: a bias that
  // is only the fixed window's was checked row by row.
  std::string dead_rows(const std::string& bias) {
    const bool only_fixed = optional_name(node_.inputs, 3).empty() && optional_name(node_.inputs, 6).empty();
    if (only_fixed && !fixed_rows_die_) return "";
    Attributes keep;
    keep.set("keepdims", int64_t{1});
    const std::string most = build_.add("ReduceMax", "bias_row_max", {bias, build_.int64s("last_axis", {-1})}, keep);
    return build_.add("Equal", "dead_rows", {most, minus_infinity()});
  }

  std::string guard(const std::string& label, const std::string& dead, const std::string& value) {
    return build_.add("Where", label, {dead, zero(), value});
  }

  std::string zero() { return constant_once(zero_, "zero", 0.0f); }
  std::string minus_infinity() { return constant_once(minus_infinity_, "minus_infinity", kMinusInfinity); }
  std::string constant_once(std::string& name, const std::string& label, float value) {
    if (name.empty()) name = build_.float_scalar(label, value);
    return name;
  }

  // Output `index` of the node, if the model reads it, in the inputs' dtype.
  void write_output(size_t index, const std::string& value, const std::string& label) {
    const std::string& output = optional_name(node_.outputs, index);
    if (output.empty()) return;
    if (dtype_ != DType::f32) {
      build_.cast(label + "_out", value, dtype_, output);
    } else {
      build_.add("Identity", label + "_out", {value}, {}, output);
    }
  }

  Graph& graph_;
  const Node& node_;
  NodeExpansion build_;
  DType dtype_ = DType::f32;
  AttentionExtents e_;
  KeyWindow window_;
  bool fixed_rows_die_ = false;
  std::string zero_, minus_infinity_;
};

}  // namespace

std::vector<Node> expand_attention(Graph& graph, const Node& node, int64_t /*opset*/) {
  return AttentionExpansion(graph, node).run();
}

}  // namespace nee
