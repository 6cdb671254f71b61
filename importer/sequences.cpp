#include "importer/sequences.h"

#include <fmt/format.h>

#include <map>

#include "core/error.h"
#include "importer/opset_nodes.h"
#include "importer/value_needed.h"
#include "runtime/onnx_tensor.h"

namespace nee {

namespace {

// The position input `index` of `node` as one integer, or ValueNeeded.
int64_t known_position(const Graph& graph, const Node& node, size_t index) {
  const std::string& name = node.inputs[index];
  const Tensor* t = graph.constant(name);
  if (!t) {
    throw ValueNeeded(fmt::format("position '{}' is not a constant; NEE resolves sequences at import, so it "
                                  "specializes the model on the position (nee-run runs it in stages)",
                                  name),
                      name);
  }
  if (t->elements() != 1 || (t->dtype() != DType::i64 && t->dtype() != DType::i32)) {
    throw Error(fmt::format("position '{}' must be one int32 or int64, got {}", name, t->type().to_string()));
  }
  return t->dtype() == DType::i64 ? *t->data_as<int64_t>() : *t->data_as<int32_t>();
}

// A position in [-n, n - 1] (or [-n, n] where `end_allowed`) made non-negative.
size_t checked_position(int64_t pos, size_t n, bool end_allowed, const std::string& what) {
  const auto size = static_cast<int64_t>(n);
  if (pos < -size || pos > (end_allowed ? size : size - 1)) {
    throw Error(fmt::format("{} position {} is out of range for a sequence of {}", what, pos, n));
  }
  return static_cast<size_t>(pos < 0 ? pos + size : pos);
}

Tensor i64_vector(const std::vector<int64_t>& values) {
  Tensor t(DType::i64, {static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  return t;
}

}  // namespace

const std::set<std::string>& SequenceValues::operators() {
  static const std::set<std::string> ops = {"SequenceEmpty", "SequenceConstruct",  "SequenceInsert",
                                            "SequenceErase", "SequenceAt",         "SequenceLength",
                                            "ConcatFromSequence", "SplitToSequence"};
  return ops;
}

bool SequenceValues::handles(const Node& node) const {
  return operators().count(node.op) || (node.op == "Identity" && !node.inputs.empty() && is_sequence(node.inputs[0]));
}

const SequenceValues::Sequence& SequenceValues::sequence(const std::string& name) const {
  auto it = sequences_.find(name);
  if (it == sequences_.end()) throw Error(fmt::format("'{}' is not a sequence", name));
  return it->second;
}

const std::vector<std::string>& SequenceValues::elements(const std::string& name) const {
  return sequence(name).elements;
}

std::vector<Node> SequenceValues::expand(Graph& graph, const Node& node, int64_t opset) {
  const std::string& op = node.op;
  // The inputs each operator needs before its optional ones (ONNX's schemas), checked
  // before any is read: a fuzzed SequenceInsert without inputs once escaped as
  // std::out_of_range.
  static const std::map<std::string, size_t> required = {
      {"Identity", 1},      {"SequenceEmpty", 0},      {"SequenceConstruct", 1}, {"SequenceInsert", 2},
      {"SequenceErase", 1}, {"SequenceAt", 2},         {"SequenceLength", 1},    {"ConcatFromSequence", 1},
      {"SplitToSequence", 1}};
  const size_t needed = required.at(op);
  if (node.inputs.size() < needed) {
    throw Error(fmt::format("{} needs {} input(s), the node has {}", op, needed, node.inputs.size()));
  }
  if (node.outputs.empty() || node.outputs[0].empty()) throw Error(fmt::format("{} has no output", op));
  const std::string& out = node.outputs[0];
  if (op == "Identity") {
    sequences_[out] = sequence(node.inputs[0]);
    return {};
  }
  if (op == "SequenceEmpty") {
    const int64_t dtype = node.attrs.get_int("dtype", 1);  // FLOAT
    sequences_[out] = Sequence{dtype_from_onnx(static_cast<int32_t>(dtype), "attribute 'dtype'"), {}};
    return {};
  }
  if (op == "SequenceConstruct") {
    if (node.inputs.empty()) throw Error("SequenceConstruct needs at least one tensor");
    Sequence s{graph.type_of(node.inputs[0]).dtype, node.inputs};
    for (const std::string& in : node.inputs) {
      if (graph.type_of(in).dtype != s.dtype) {
        throw Error(fmt::format("its tensors mix {} and {}", to_string(s.dtype), to_string(graph.type_of(in).dtype)));
      }
    }
    sequences_[out] = std::move(s);
    return {};
  }
  if (op == "SplitToSequence") {
    const TensorType& in = graph.type_of(node.inputs.at(0));
    const auto rank = static_cast<int64_t>(in.shape.size());
    int64_t axis = node.attrs.get_int("axis", 0);
    if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} is out of range for {}", axis, in.to_string()));
    if (axis < 0) axis += rank;
    const int64_t extent = in.shape[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    const bool given = node.inputs.size() > 1 && !node.inputs[1].empty();
    if (given) {
      const Tensor* split = graph.constant(node.inputs[1]);
      if (!split) throw ValueNeeded(fmt::format("split '{}' is not a constant", node.inputs[1]), node.inputs[1]);
      if (split->dtype() != DType::i64 && split->dtype() != DType::i32) throw Error("split must be int32 or int64");
      std::vector<int64_t> values;
      for (int64_t i = 0; i < split->elements(); ++i) {
        values.push_back(split->dtype() == DType::i64 ? split->data_as<int64_t>()[i] : split->data_as<int32_t>()[i]);
      }
      if (split->shape().empty()) {  // one chunk size; the last chunk may be smaller
        if (values[0] <= 0) throw Error(fmt::format("split size {} must be positive", values[0]));
        for (int64_t at = 0; at < extent; at += values[0]) sizes.push_back(std::min(values[0], extent - at));
      } else {
        sizes = values;
      }
    } else {
      sizes.assign(static_cast<size_t>(extent), 1);
    }
    const bool squeeze = !given && node.attrs.get_int("keepdims", 1) == 0;
    Sequence s{in.dtype, {}};
    std::vector<std::string> chunks;
    for (size_t k = 0; k < sizes.size(); ++k) {
      chunks.push_back(fmt::format("{}/chunk{}", node.name, k));
      s.elements.push_back(squeeze ? fmt::format("{}/item{}", node.name, k) : chunks.back());
    }
    std::vector<Node> nodes;
    Node split{"Split", node.name + "/split", {node.inputs[0]}, chunks, {}};
    split.attrs.set("axis", axis);
    // Split's sizes: an input from opset 13, an attribute before.
    if (opset >= 13) {
      const std::string name = node.name + "/sizes";
      if (!graph.has_value(name)) graph.add_constant(name, i64_vector(sizes));
      split.inputs.push_back(name);
    } else {
      split.attrs.set("split", sizes);
    }
    if (!sizes.empty()) nodes.push_back(std::move(split));
    for (size_t k = 0; squeeze && k < sizes.size(); ++k) {
      nodes.push_back(axes_node(graph, "Squeeze", fmt::format("{}/squeeze{}", node.name, k), chunks[k], s.elements[k],
                                axis, opset));
    }
    sequences_[out] = std::move(s);
    return nodes;
  }

  const Sequence& s = sequence(node.inputs.at(0));
  const size_t n = s.elements.size();
  const bool has_position = node.inputs.size() > 1 && !node.inputs[1].empty();
  if (op == "SequenceInsert") {
    const std::string& tensor = node.inputs.at(1);
    if (graph.type_of(tensor).dtype != s.dtype) {
      throw Error(fmt::format("it inserts a {} tensor into a sequence of {}", to_string(graph.type_of(tensor).dtype),
                              to_string(s.dtype)));
    }
    const bool positioned = node.inputs.size() > 2 && !node.inputs[2].empty();
    const size_t at = positioned ? checked_position(known_position(graph, node, 2), n, true, "insert") : n;
    Sequence inserted = s;
    inserted.elements.insert(inserted.elements.begin() + static_cast<std::ptrdiff_t>(at), tensor);
    sequences_[out] = std::move(inserted);
    return {};
  }
  if (op == "SequenceErase") {
    if (n == 0) throw Error("it erases from an empty sequence");
    const size_t at = has_position ? checked_position(known_position(graph, node, 1), n, false, "erase") : n - 1;
    Sequence erased = s;
    erased.elements.erase(erased.elements.begin() + static_cast<std::ptrdiff_t>(at));
    sequences_[out] = std::move(erased);
    return {};
  }
  if (op == "SequenceAt") {
    const size_t at = checked_position(known_position(graph, node, 1), n, false, "SequenceAt");
    return {Node{"Identity", node.name + "/at", {s.elements[at]}, {out}, {}}};
  }
  if (op == "SequenceLength") {
    Tensor length(DType::i64, {});
    *length.data_as<int64_t>() = static_cast<int64_t>(n);
    if (!graph.has_value(out)) graph.add_constant(out, length);
    return {};
  }
  // ConcatFromSequence
  if (n == 0) throw Error("it concatenates an empty sequence");
  const int64_t axis = node.attrs.get_int("axis");
  std::vector<std::string> parts = s.elements;
  std::vector<Node> nodes;
  if (node.attrs.get_int("new_axis", 0) != 0) {
    for (size_t k = 0; k < n; ++k) {
      parts[k] = fmt::format("{}/unsqueezed{}", node.name, k);
      nodes.push_back(axes_node(graph, "Unsqueeze", fmt::format("{}/unsqueeze{}", node.name, k), s.elements[k], parts[k],
                                axis, opset));
    }
  }
  Node concat{"Concat", node.name + "/concat", parts, {out}, {}};
  concat.attrs.set("axis", axis);
  nodes.push_back(std::move(concat));
  return nodes;
}

}  // namespace nee
