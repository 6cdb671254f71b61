#include "importer/half_precision.h"

#include <onnx/onnx_pb.h>

#include <set>

#include "runtime/onnx_tensor.h"

namespace nee {

namespace {

bool is_half(DType dtype) { return dtype == DType::f16 || dtype == DType::bf16; }

// Operators whose kernels only move, select or convert elements, so that f16 and bf16
// pass through them as they are (their import functions take kAnyDType).
bool moves_elements(const std::string& op) {
  static const std::set<std::string> ops = {
      "BitCast", "Cast", "CastLike", "Compress", "Concat", "DepthToSpace", "Dropout", "Expand", "EyeLike", "Flatten",
      "Gather", "GatherElements", "GatherND", "Identity", "OneHot", "Pad", "Reshape", "ReverseSequence",
      "Shape", "Size", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Trilu", "Unsqueeze"};
  return ops.count(op) != 0;
}

Node cast_node(const std::string& name, const std::string& input, const std::string& output, DType to) {
  Node cast;
  cast.op = "Cast";
  cast.name = name;
  cast.inputs = {input};
  cast.outputs = {output};
  cast.attrs.set("to", static_cast<int64_t>(onnx_elem_type(to)));
  return cast;
}

}  // namespace

std::vector<Node> cast_half_inputs(const ImportContext& ctx, Node& node, HalfPrecisionWrap& wrap) {
  if (moves_elements(node.op)) return {};
  std::vector<Node> casts;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) continue;
    const DType dtype = ctx.graph.type_of(node.inputs[i]).dtype;
    if (!is_half(dtype)) continue;
    if (wrap.half == DType::f32) wrap.half = dtype;
    const std::string wide = node.name + ":f32_input" + std::to_string(i);
    casts.push_back(cast_node(wide + "_cast", node.inputs[i], wide, DType::f32));
    node.inputs[i] = wide;
  }
  if (casts.empty()) return {};
  wrap.final_outputs = node.outputs;
  for (std::string& out : node.outputs) {
    if (!out.empty()) out += ":f32";
  }
  return casts;
}

std::vector<Node> cast_half_outputs(Graph& graph, Node& node, const HalfPrecisionWrap& wrap) {
  if (wrap.half == DType::f32) return {};
  std::vector<Node> casts;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    const TensorType type = graph.type_of(node.outputs[i]);
    if (type.dtype == DType::f32) {
      casts.push_back(cast_node(node.outputs[i] + "_cast", node.outputs[i], wrap.final_outputs[i], wrap.half));
      continue;
    }
    const Tensor* folded = graph.constant(node.outputs[i]);  // the node was evaluated at import
    const Tensor value = folded ? *folded : Tensor();
    graph.remove_value(node.outputs[i]);
    if (folded) {
      graph.add_constant(wrap.final_outputs[i], value);
    } else {
      graph.add_value(wrap.final_outputs[i], type);
    }
    node.outputs[i] = wrap.final_outputs[i];
  }
  return casts;
}

}  // namespace nee
