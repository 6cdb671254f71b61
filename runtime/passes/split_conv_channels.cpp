#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/node_workload.h"
#include "runtime/passes/axis_parts.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// Output channels [first, first + count) of a constant: weights [O, C, KH, KW] or a bias [O].
Tensor channel_range(const Tensor& t, int64_t first, int64_t count) {
  std::vector<int64_t> shape = t.shape();
  const int64_t per_channel = t.elements() / shape[0];
  shape[0] = count;
  Tensor out(DType::f32, shape);
  std::copy_n(t.data_as<float>() + first * per_channel, count * per_channel, out.data_as<float>());
  return out;
}

// A NeeConv that may split by its output channels: one group, plain constant weights
// [O, C, KH, KW] (not blocked yet), a constant bias or none, no residual, an NCHW output
// the graph does not return.
bool splittable(const Graph& graph, const Node& conv) {
  if (conv.op != "NeeConv" || conv.attrs.get_int("group", 1) != 1 || nee_conv_residual_slot(conv) >= 0 ||
      conv.attrs.get_int("weight_block", 0) != 0 || graph.is_output(conv.outputs[0])) {
    return false;
  }
  const Tensor* w = f32_constant(graph, conv.inputs[1]);
  const bool bias = conv.attrs.get_int("bias", 0) != 0;
  return w && w->shape().size() == 4 && graph.type_of(conv.outputs[0]).shape.size() == 4 &&
         (!bias || f32_constant(graph, conv.inputs[2]));
}

// The value whose channel ranges the readers take: the conv's output, or the one Reshape
// that alone reads it and keeps its batch and channel dims (a 1-D conv's rows viewed back
// as [N, C, L]); null when another node reads either.
const Node* channel_view(const Graph& graph, const std::string& y) {
  const std::vector<const Node*> readers = graph.consumers(y);
  if (readers.size() != 1 || readers[0]->op != "Reshape" || graph.is_output(readers[0]->outputs[0])) return nullptr;
  const std::vector<int64_t>& from = graph.type_of(y).shape;
  const std::vector<int64_t>& to = graph.type_of(readers[0]->outputs[0]).shape;
  return to.size() >= 2 && to[0] == from[0] && to[1] == from[1] ? readers[0] : nullptr;
}

}  // namespace

void split_conv_channels(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  std::map<size_t, std::vector<Node>> replacements;  // node index -> the nodes in its place
  std::vector<std::string> unsplit;                   // constants the split convs read, to drop once unread
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& conv = nodes[i];
    if (!splittable(graph, conv)) continue;
    const Node* view = channel_view(graph, conv.outputs[0]);
    const std::string& taken = view ? view->outputs[0] : conv.outputs[0];
    const std::vector<const Node*> readers = graph.consumers(taken);
    std::map<size_t, std::vector<AxisPart>> parts_of;
    int64_t channels_taken = 0;
    for (const Node* reader : readers) {
      const std::optional<std::vector<AxisPart>> parts = axis_parts(graph, *reader, taken, 1);
      if (!parts) break;
      parts_of[static_cast<size_t>(reader - nodes.data())] = *parts;
      for (const AxisPart& part : *parts) channels_taken += part.count;
    }
    if (readers.empty() || parts_of.size() != readers.size()) continue;
    const std::vector<int64_t> y = graph.type_of(conv.outputs[0]).shape;
    if (parts_of.size() == 1 && parts_of.begin()->second.size() == 1 && channels_taken == y[1]) continue;
    const Tensor& w = *f32_constant(graph, conv.inputs[1]);
    const bool bias = conv.attrs.get_int("bias", 0) != 0;
    for (const auto& [reader, parts] : parts_of) {
      std::vector<Node>& in_place = replacements[reader];
      for (const AxisPart& part : parts) {
        const std::string suffix =
            ".channels" + std::to_string(part.first) + "_" + std::to_string(part.first + part.count);
        Node piece = conv;
        piece.name = conv.name + suffix;
        piece.inputs[1] = add_named_constant(graph, conv.inputs[1] + suffix, channel_range(w, part.first, part.count));
        if (bias) {
          piece.inputs[2] = add_named_constant(graph, conv.inputs[2] + suffix,
                                               channel_range(*f32_constant(graph, conv.inputs[2]), part.first,
                                                             part.count));
        }
        if (!view) {
          piece.outputs = {part.output};
          in_place.push_back(std::move(piece));
          continue;
        }
        // The piece writes its rows, viewed as the reader's output.
        const std::vector<int64_t> shape = graph.type_of(part.output).shape;
        const std::string rows = unique_value_name(graph, conv.outputs[0] + suffix);
        graph.add_value(rows, TensorType{DType::f32, {y[0], part.count, y[2], y[3]}});
        piece.outputs = {rows};
        const std::string view_name = piece.name + ".in_model_shape";
        in_place.push_back(std::move(piece));
        graph.remove_value(part.output);
        in_place.push_back(reshape_view(graph, rows, part.output, shape));
        in_place.back().name = view_name;
      }
    }
    replacements[i] = {};
    if (view) {
      replacements[static_cast<size_t>(view - nodes.data())] = {};
      graph.remove_value(view->outputs[0]);
      unsplit.push_back(view->inputs[1]);
    }
    graph.remove_value(conv.outputs[0]);
    unsplit.push_back(conv.inputs[1]);
    if (bias) unsplit.push_back(conv.inputs[2]);
  }
  replace_nodes(graph, replacements);
  graph.sort_topologically();
  for (const std::string& name : unsplit) remove_if_unread(graph, name);
}

}  // namespace nee
