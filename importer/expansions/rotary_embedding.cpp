#include <fmt/format.h>

#include <vector>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

namespace {

class RotaryExpansion {
 public:
  RotaryExpansion(Graph& graph, const Node& node) : graph_(graph), node_(node), build_(graph, node.name) {}

  std::vector<Node> run() {
    if (node_.inputs.size() < 3 || node_.inputs[0].empty() || node_.inputs[1].empty() || node_.inputs[2].empty()) {
      throw Error("X, cos_cache and sin_cache are required");
    }
    const TensorType& x = graph_.type_of(node_.inputs[0]);
    dtype_ = x.dtype;
    if (!is_floating(dtype_)) {
      throw Error(fmt::format("X has dtype {}; RotaryEmbedding takes floats", to_string(dtype_)));
    }
    read_extents(x.shape);

    std::string input = node_.inputs[0];
    if (dtype_ != DType::f32) input = build_.cast("x_f32", input, DType::f32);
    // Heads stay where the input has them: [B, S, H, D] for 3-D, [B, H, S, D] for 4-D,
    // with the angles [B, S, 1, R/2] or [B, 1, S, R/2].
    if (!four_d_) input = build_.reshape("x_heads", input, {batch_, sequence_, heads_, head_});
    const std::string cos = angles(1, "cos");
    const std::string sin = angles(2, "sin");

    const std::string rotating = rotary_ < head_ ? slice("x_rotating", input, 0, rotary_, 3) : input;
    std::string rotated = interleaved_ ? rotate_pairs(rotating, cos, sin) : rotate_halves(rotating, cos, sin);
    if (rotary_ < head_) rotated = concat("x_rotated", {rotated, slice("x_kept", input, rotary_, head_, 3)}, 3);
    if (!four_d_) rotated = build_.reshape("y_rows", rotated, x.shape);
    if (dtype_ != DType::f32) {
      build_.cast("y_out", rotated, dtype_, node_.outputs[0]);
    } else {
      build_.add("Identity", "y_out", {rotated}, {}, node_.outputs[0]);
    }
    return build_.take();
  }

 private:
  void read_extents(const std::vector<int64_t>& shape) {
    if (shape.size() != 3 && shape.size() != 4) {
      throw Error(fmt::format("X has rank {}; it must be 3-D or 4-D", shape.size()));
    }
    four_d_ = shape.size() == 4;
    batch_ = shape[0];
    if (four_d_) {
      heads_ = shape[1];
      sequence_ = shape[2];
      head_ = shape[3];
    } else {
      sequence_ = shape[1];
      heads_ = node_.attrs.get_int("num_heads", 0);
      if (heads_ <= 0) throw Error("3-D X needs a positive 'num_heads' attribute");
      if (shape[2] % heads_ != 0) {
        throw Error(fmt::format("X's last dim {} is not a multiple of num_heads = {}", shape[2], heads_));
      }
      head_ = shape[2] / heads_;
    }
    rotary_ = node_.attrs.get_int("rotary_embedding_dim", 0);
    if (rotary_ == 0) rotary_ = head_;
    if (rotary_ < 0 || rotary_ > head_ || rotary_ % 2 != 0) {
      throw Error(
          fmt::format("rotary_embedding_dim {} must be even and at most the head's {} elements", rotary_, head_));
    }
    interleaved_ = node_.attrs.get_int("interleaved", 0) != 0;
  }

  // The cos or sin cache (input `index`) for each position, [B, S, R/2], shaped to
  // broadcast over the heads.
  std::string angles(size_t index, const std::string& label) {
    const std::string& cache = node_.inputs[index];
    const TensorType& type = graph_.type_of(cache);
    const std::string what = index == 1 ? "cos_cache" : "sin_cache";
    if (type.dtype != dtype_) {
      throw Error(fmt::format("{} has dtype {}, X {}", what, to_string(type.dtype), to_string(dtype_)));
    }
    if (type.shape.empty() || type.shape.back() != rotary_ / 2) {
      throw Error(fmt::format("{}'s last dim must be {} (half of {} rotated elements)", what, rotary_ / 2, rotary_));
    }
    std::string value = cache;
    if (dtype_ != DType::f32) value = build_.cast(label + "_f32", value, DType::f32);
    const std::string& positions = optional_name(node_.inputs, 3);
    if (!positions.empty()) {
      const TensorType& ids = graph_.type_of(positions);
      if (ids.shape != std::vector<int64_t>{batch_, sequence_}) {
        throw Error(fmt::format("position_ids is {}; it must be [{}, {}]", ids.to_string(), batch_, sequence_));
      }
      if (type.shape.size() != 2) throw Error(fmt::format("{} must be 2-D with position_ids", what));
      value = build_.add("Gather", label + "_at_positions", {value, positions});
    } else if (type.shape != std::vector<int64_t>{batch_, sequence_, rotary_ / 2}) {
      throw Error(fmt::format("{} is {}; without position_ids it must be [{}, {}, {}]", what, type.to_string(), batch_,
                              sequence_, rotary_ / 2));
    }
    std::vector<int64_t> shape = four_d_ ? std::vector<int64_t>{batch_, 1, sequence_, rotary_ / 2}
                                         : std::vector<int64_t>{batch_, sequence_, 1, rotary_ / 2};
    if (interleaved_) shape.push_back(1);
    return build_.reshape(label + "_by_head", value, shape);
  }

  // (x1, x2) -> (cos x1 - sin x2, sin x1 + cos x2) for the first and second halves.
  std::string rotate_halves(const std::string& x, const std::string& cos, const std::string& sin) {
    const std::string first = slice("first_half", x, 0, rotary_ / 2, 3);
    const std::string second = slice("second_half", x, rotary_ / 2, rotary_, 3);
    return concat("rotated", {real_part(first, second, cos, sin), imaginary_part(first, second, cos, sin)}, 3);
  }

  // The same for the even and odd elements of each pair, written back in pairs.
  std::string rotate_pairs(const std::string& x, const std::string& cos, const std::string& sin) {
    const std::vector<int64_t> outer = four_d_ ? std::vector<int64_t>{batch_, heads_, sequence_}
                                               : std::vector<int64_t>{batch_, sequence_, heads_};
    std::vector<int64_t> pairs = outer;
    pairs.insert(pairs.end(), {rotary_ / 2, 2});
    const std::string paired = build_.reshape("pairs", x, pairs);
    const std::string even = slice("even", paired, 0, 1, 4);
    const std::string odd = slice("odd", paired, 1, 2, 4);
    const std::string rotated =
        concat("rotated_pairs", {real_part(even, odd, cos, sin), imaginary_part(even, odd, cos, sin)}, 4);
    std::vector<int64_t> rows = outer;
    rows.push_back(rotary_);
    return build_.reshape("rotated", rotated, rows);
  }

  std::string real_part(const std::string& x1, const std::string& x2, const std::string& cos, const std::string& sin) {
    return build_.add("Sub", "real", {build_.add("Mul", "cos_x1", {cos, x1}), build_.add("Mul", "sin_x2", {sin, x2})});
  }
  std::string imaginary_part(const std::string& x1, const std::string& x2, const std::string& cos,
                             const std::string& sin) {
    const std::string sin_x1 = build_.add("Mul", "sin_x1", {sin, x1});
    return build_.add("Add", "imaginary", {sin_x1, build_.add("Mul", "cos_x2", {cos, x2})});
  }

  std::string slice(const std::string& label, const std::string& input, int64_t begin, int64_t end, int64_t axis) {
    return build_.add("Slice", label,
                      {input, build_.int64s(label + "_starts", {begin}), build_.int64s(label + "_ends", {end}),
                       build_.int64s(label + "_axes", {axis})});
  }

  std::string concat(const std::string& label, const std::vector<std::string>& inputs, int64_t axis) {
    Attributes attrs;
    attrs.set("axis", axis);
    return build_.add("Concat", label, inputs, std::move(attrs));
  }

  Graph& graph_;
  const Node& node_;
  NodeExpansion build_;
  DType dtype_ = DType::f32;
  bool four_d_ = false, interleaved_ = false;
  int64_t batch_ = 0, heads_ = 0, sequence_ = 0, head_ = 0, rotary_ = 0;
};

}  // namespace

std::vector<Node> expand_rotary_embedding(Graph& graph, const Node& node, int64_t /*opset*/) {
  return RotaryExpansion(graph, node).run();
}

}  // namespace nee
