#include "runtime/node_flops.h"

#include <set>
#include <string>

#include "runtime/node_workload.h"
#include "runtime/reference/einsum_equation.h"

namespace nee {

namespace {

double product(const std::vector<int64_t>& dims, size_t from) {
  double p = 1;
  for (size_t i = from; i < dims.size(); ++i) p *= static_cast<double>(dims[i]);
  return p;
}

double elements(const Graph& graph, const std::string& value) {
  return static_cast<double>(graph.type_of(value).elements());
}

bool is_data_movement(const Node& node) {
  static const std::set<std::string> ops = {
      "Reshape", "Flatten", "Identity", "Squeeze", "Unsqueeze", "Dropout", "Transpose", "Concat",
      "Slice", "Gather", "Split", "Expand", "Tile", "Pad", "Shape", "ConstantOfShape", "Range", "Cast", "BitCast",
      "NeeLayout", "NeeFrameGather"};
  if (node.op == "Resize") return node.attrs.get_string("mode", "nearest") == "nearest";
  return ops.count(node.op) != 0;
}

bool reads_every_input_element_once(const std::string& op) {
  static const std::set<std::string> ops = {
      "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ArgMax", "Softmax", "LogSoftmax",
      "LayerNormalization", "BatchNormalization", "GlobalAveragePool", "GlobalMaxPool", "InstanceNormalization",
      "NeeGroupNorm", "NeeGroupNormAffine", "DynamicQuantizeLinear"};
  return ops.count(op) != 0;
}

// 2 x output elements x the length of each output's dot product.
double matmul_flops(const Graph& graph, const Node& node) {
  const std::vector<int64_t>& a = graph.type_of(node.inputs[0]).shape;
  int64_t k = a.empty() ? 1 : a.back();
  const char* trans_a = node.op == "Gemm" ? "transA" : "trans_a";  // NeeMatMul's spelling
  if (node.op != "MatMul" && node.attrs.get_int(trans_a, 0) != 0) k = a.front();
  return 2.0 * elements(graph, node.outputs[0]) * static_cast<double>(k);
}

}  // namespace

double node_flops(const Graph& graph, const Node& node) {
  if (const std::optional<Workload> w = workload_of(graph, node)) return w->flops();
  if (is_data_movement(node)) return 0;
  if (node.op == "MatMul" || node.op == "Gemm" || node.op == "NeeMatMul") return matmul_flops(graph, node);
  // Weights are [O, C/group, k...] for Conv and [C, O/group, k...] for ConvTranspose: each
  // output (Conv) or input (ConvTranspose) element meets product(W.shape[1:]) weights.
  if (node.op == "Conv" || node.op == "NeeConv") {
    // Blocked weights [O/16, C, KH, KW, 16] hold the taps of an output channel in dims 1-3;
    // Winograd weights [O/16, alpha^2, C, 16] are those of a 3x3 window.
    std::vector<int64_t> taps = graph.type_of(node.inputs[1]).shape;
    if (node.attrs.get_int("winograd_tile", 0) != 0 && taps.size() == 4) taps = {taps[0], taps[2], 3, 3};
    if (node.attrs.get_int("weight_block", 0) != 0 && taps.size() == 5) taps.pop_back();
    // Integer weights [O/16, C/4, KH, KW, 16, 4] hold C/4 lanes of 4 channels.
    if (node.attrs.get_int("a_bits", 0) != 0 && taps.size() == 6) taps = {taps[0], taps[1] * 4, taps[2], taps[3]};
    return 2.0 * elements(graph, node.outputs[0]) * product(taps, 1);
  }
  // A recurrent layer's products: gates x H outputs a step and direction, each the dot
  // product of X's I and the state's H units (NeeRecurrence: the state's only, its input
  // projected beforehand).
  if (node.op == "RNN" || node.op == "GRU" || node.op == "LSTM" || node.op == "NeeRecurrence") {
    const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
    const double hidden = static_cast<double>(node.attrs.get_int("hidden_size"));
    const std::string cell = node.op == "NeeRecurrence" ? node.attrs.get_string("cell") : node.op;
    const double gates = cell == "LSTM" ? 4 : cell == "GRU" ? 3 : 1;
    const double dirs = node.attrs.get_string("direction") == "bidirectional" ? 2 : 1;
    const double input = node.op == "NeeRecurrence" ? 0 : static_cast<double>(x[2]);
    return 2.0 * static_cast<double>(x[0] * x[1]) * dirs * gates * hidden * (input + hidden);
  }
  // LinearAttention: per token and kv head, the state [d_k, d_v] is written (k v^T) and,
  // by the delta rules, read (S^T k); each query head reads it (q^T S): 2 d_k d_v each.
  if (node.op == "LinearAttention") {
    const std::vector<int64_t>& q = graph.type_of(node.inputs[0]).shape;
    const double q_heads = static_cast<double>(node.attrs.get_int("q_num_heads"));
    const double kv_heads = static_cast<double>(node.attrs.get_int("kv_num_heads"));
    const double d_k = static_cast<double>(q[2]) / q_heads;
    const double d_v = static_cast<double>(graph.type_of(node.inputs[2]).shape[2]) / kv_heads;
    const std::string rule = node.attrs.get_string("update_rule");
    const double kv_passes = rule == "delta" || rule == "gated_delta" ? 2 : 1;
    return 2.0 * static_cast<double>(q[0] * q[1]) * d_k * d_v * (kv_heads * kv_passes + q_heads);
  }
  // Einsum: a multiply and an add for every combination of its labels' values.
  if (node.op == "Einsum") {
    std::vector<std::vector<int64_t>> shapes;
    for (const std::string& in : node.inputs) shapes.push_back(graph.type_of(in).shape);
    double combinations = 1;
    for (int64_t size : parse_einsum(node.attrs.get_string("equation"), shapes).label_sizes) {
      combinations *= static_cast<double>(size);
    }
    return (node.inputs.size() > 1 ? 2.0 : 1.0) * combinations;
  }
  if (node.op == "ConvTranspose") {
    return 2.0 * elements(graph, node.inputs[0]) * product(graph.type_of(node.inputs[1]).shape, 1);
  }
  if (node.op == "MaxPool" || node.op == "AveragePool") {
    return elements(graph, node.outputs[0]) * product(node.attrs.get_ints("kernel_shape"), 0);
  }
  if (reads_every_input_element_once(node.op)) return elements(graph, node.inputs[0]);
  if (node.op == "Sum" || node.op == "Min" || node.op == "Max") {
    const double extra_operands = node.inputs.size() > 1 ? static_cast<double>(node.inputs.size() - 1) : 1.0;
    return extra_operands * elements(graph, node.outputs[0]);
  }
  // An omitted first output (a DynamicQuantizeLinear's bytes nothing reads) counts nothing.
  return node.outputs.empty() || node.outputs[0].empty() ? 0.0 : elements(graph, node.outputs[0]);
}

}  // namespace nee
