#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/passes/axis_parts.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// Columns [first, first + count) of the last dim of a constant: a 2-D B, or a bias whose
// last dim is N (every other dim 1).
Tensor constant_columns(const Tensor& t, const AxisPart& part) {
  std::vector<int64_t> shape = t.shape();
  const int64_t columns = shape.back(), rows = t.elements() / columns;
  shape.back() = part.count;
  Tensor out(DType::f32, shape);
  const float* src = t.data_as<float>();
  float* dst = out.data_as<float>();
  for (int64_t row = 0; row < rows; ++row) {
    std::copy_n(src + row * columns + part.first, part.count, dst + row * part.count);
  }
  return out;
}

}  // namespace

void split_matmul_columns(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  std::map<size_t, std::vector<Node>> replacements;  // node index -> the nodes in its place
  std::vector<std::string> unpartitioned;  // constants the split products read, to drop once unread
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& mm = nodes[i];
    if (mm.op != "NeeMatMul" || graph.is_output(mm.outputs[0])) continue;
    const Tensor* b = f32_constant(graph, mm.inputs[1]);
    const bool has_bias = mm.inputs.size() > 2 && !mm.inputs[2].empty();
    const Tensor* bias = has_bias ? f32_constant(graph, mm.inputs[2]) : nullptr;
    if (!b || b->shape().size() != 2 || mm.attrs.get_int("trans_b", 0) != 0 || (has_bias && !bias)) continue;
    const int64_t n = graph.type_of(mm.outputs[0]).shape.back();
    // A bias that varies along rows too would need its rows kept with each part.
    const bool bias_per_column = bias && bias->elements() == n && bias->shape().back() == n;
    if (bias && !bias_per_column && bias->elements() != 1) continue;
    const std::vector<const Node*> readers = graph.consumers(mm.outputs[0]);
    std::map<size_t, std::vector<AxisPart>> parts_of;
    const size_t columns_axis = graph.type_of(mm.outputs[0]).shape.size() - 1;
    for (const Node* reader : readers) {
      const std::optional<std::vector<AxisPart>> parts = axis_parts(graph, *reader, mm.outputs[0], columns_axis);
      if (!parts) break;
      parts_of[static_cast<size_t>(reader - nodes.data())] = *parts;
    }
    if (readers.empty() || parts_of.size() != readers.size()) continue;
    for (const auto& [reader, parts] : parts_of) {
      std::vector<Node>& in_place = replacements[reader];
      for (const AxisPart& part : parts) {
        const std::string suffix =
            ".columns" + std::to_string(part.first) + "_" + std::to_string(part.first + part.count);
        Node product = mm;
        product.name = nodes[reader].name + (parts.size() > 1 ? "." + part.output : "");
        product.outputs = {part.output};
        product.inputs[1] = mm.inputs[1] + suffix;
        if (!graph.has_value(product.inputs[1])) {
          graph.add_constant(product.inputs[1], constant_columns(*b, part));
        }
        if (bias_per_column) {
          product.inputs[2] = mm.inputs[2] + suffix;
          if (!graph.has_value(product.inputs[2])) graph.add_constant(product.inputs[2], constant_columns(*bias, part));
        }
        in_place.push_back(std::move(product));
      }
    }
    replacements[i] = {};
    unpartitioned.push_back(mm.inputs[1]);
    if (bias_per_column) unpartitioned.push_back(mm.inputs[2]);
    graph.remove_value(mm.outputs[0]);
  }
  replace_nodes(graph, replacements);
  for (const std::string& name : unpartitioned) remove_if_unread(graph, name);
}

}  // namespace nee
