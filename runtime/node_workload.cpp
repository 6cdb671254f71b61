#include "runtime/node_workload.h"

#include <map>

#include "core/conv_workload.h"
#include "core/error.h"

namespace nee {

// NeeConv's inputs are X, W, [B], [R] with no omitted names; pads are ONNX's
// [top, left, bottom, right].
static std::optional<Workload> conv2d_workload_of(const Graph& graph, const Node& node) {
  std::vector<TensorType> operands;
  for (const std::string& in : node.inputs) operands.push_back(graph.type_of(in));
  const bool has_bias = node.attrs.get_int("bias") != 0;
  const bool has_residual = node.attrs.get_int("residual") != 0;
  if (operands.size() != 2u + has_bias + has_residual) return std::nullopt;
  const std::vector<int64_t> strides = node.attrs.get_ints("strides");
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  const std::vector<int64_t> dilations = node.attrs.get_ints("dilations");
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2) return std::nullopt;
  Conv2dAttrs attrs;
  attrs.strides = {strides[0], strides[1]};
  attrs.pads = {pads[0], pads[1], pads[2], pads[3]};
  attrs.dilations = {dilations[0], dilations[1]};
  attrs.group = node.attrs.get_int("group", 1);
  const std::string activation = node.attrs.get_string("activation");
  attrs.activation = activation == "relu"   ? ConvActivation::relu
                     : activation == "clip" ? ConvActivation::clip
                                            : ConvActivation::none;
  attrs.clip_min = node.attrs.get_float("clip_min");
  attrs.clip_max = node.attrs.get_float("clip_max");
  const TensorType* bias = has_bias ? &operands[2] : nullptr;
  const TensorType* residual = has_residual ? &operands.back() : nullptr;
  try {
    Workload w = make_conv2d_workload(operands[0], operands[1], bias, residual, attrs);
    if (!(w.output == graph.type_of(node.outputs[0]))) return std::nullopt;
    return w;
  } catch (const Error&) {
    return std::nullopt;  // not a shape the conv2d family covers (e.g. an empty dim)
  }
}

std::optional<Workload> workload_of(const Graph& graph, const Node& node) {
  if (node.op == "NeeConv") return conv2d_workload_of(graph, node);
  if (node.op != "NeeMatMul") return std::nullopt;
  std::vector<TensorType> operands;
  for (const std::string& in : node.inputs) {
    if (in.empty()) continue;
    const TensorType& type = graph.type_of(in);
    if (type.dtype != DType::f32) return std::nullopt;
    for (int64_t d : type.shape) {
      if (d <= 0) return std::nullopt;
    }
    operands.push_back(type);
  }
  if (operands.size() < 2 || operands[0].shape.size() < 2 || operands[1].shape.size() < 2) {
    return std::nullopt;
  }
  MatmulAttrs attrs;
  attrs.trans_a = node.attrs.get_int("trans_a", 0) != 0;
  attrs.trans_b = node.attrs.get_int("trans_b", 0) != 0;
  attrs.alpha = node.attrs.get_float("alpha", 1.0f);
  attrs.beta = node.attrs.get_float("beta", 1.0f);
  attrs.relu = node.attrs.get_int("relu", 0) != 0;
  const TensorType* bias = operands.size() > 2 ? &operands[2] : nullptr;
  return make_matmul_workload(operands[0], operands[1], bias, attrs);
}

std::vector<Workload> extract_workloads(const Graph& graph) {
  std::vector<Workload> workloads;
  for (WorkloadCount& c : count_workloads(graph)) workloads.push_back(std::move(c.workload));
  return workloads;
}

std::vector<WorkloadCount> count_workloads(const Graph& graph) {
  std::vector<WorkloadCount> counts;
  std::map<std::string, size_t> index;  // key -> position in counts
  for (const Node& node : graph.nodes()) {
    std::optional<Workload> w = workload_of(graph, node);
    if (!w) continue;
    const auto [at, inserted] = index.emplace(w->key(), counts.size());
    if (inserted) counts.push_back({std::move(*w), 0});
    ++counts[at->second].count;
  }
  return counts;
}

}  // namespace nee
