#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/activation_layout.h"
#include "core/elementwise_program.h"
#include "runtime/node_workload.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

int64_t padded_channels(int64_t c) { return (c + kActivationBlock - 1) / kActivationBlock * kActivationBlock; }

// A node output the pass may widen: NCHW f32 whose C is above 1 and not a multiple of 16,
// not a graph output (whose shape the model promises).
bool widenable(const Graph& graph, const std::string& value) {
  const TensorType& t = graph.type_of(value);
  return t.dtype == DType::f32 && t.shape.size() == 4 && t.shape[1] > 1 && t.shape[1] % kActivationBlock != 0 &&
         !graph.is_output(value);
}

bool constant_operands(const Graph& graph, const Node& conv) {
  const Tensor* w = f32_constant(graph, conv.inputs[1]);
  const bool has_bias = conv.attrs.get_int("bias", 0) != 0;
  return w && w->shape().size() == 4 && conv.attrs.get_int("weight_block", 0) == 0 &&
         (!has_bias || f32_constant(graph, conv.inputs[2]));
}

// A NeeConv of one group with constant weights: it reads a widened X through weights
// widened with zero input channels, and may widen its output with zero output channels.
bool is_dense_conv(const Graph& graph, const Node& node) {
  return node.op == "NeeConv" && node.attrs.get_int("group", 1) == 1 && constant_operands(graph, node);
}

// A NeeConv of G > 1 groups with constant weights W [M, C/G, KH, KW]: its input
// channels per group, its output channels per group.
struct ConvGroups {
  int64_t inputs = 0, outputs = 0;
};

// A grouped conv's groups, or none ({0, 0}) when it is not a NeeConv of constant weights
// whose G groups cover its X.
ConvGroups conv_groups(const Graph& graph, const Node& node) {
  if (node.op != "NeeConv" || !constant_operands(graph, node)) return {};
  const int64_t group = node.attrs.get_int("group", 1);
  const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t>& w = graph.constant(node.inputs[1])->shape();
  if (group <= 1 || x.size() != 4 || x[1] != group * w[1] || w[0] % group != 0) return {};
  return {w[1], w[0] / group};
}

// The widths of the values to widen, by value.
using Widths = std::map<std::string, int64_t>;

// Whether a grouped conv's groups still fit its widened X and output: X's C' channels make
// G' = C' / (C/G) whole groups, writing G' * M/G channels, the extra groups zero filters
// over the extra channels.
bool is_fitting_grouped_conv(const Graph& graph, const Node& node, const Widths& wide) {
  const ConvGroups groups = conv_groups(graph, node);
  const auto x = wide.find(node.inputs[0]);
  const auto y = wide.find(node.outputs[0]);
  if (groups.inputs == 0 || x == wide.end() || y == wide.end() || x->second % groups.inputs != 0) return false;
  return x->second / groups.inputs * groups.outputs == y->second;
}

bool is_pool(const Node& node) {
  const bool windowed = node.op == "MaxPool" || node.op == "AveragePool";
  const bool global = node.op == "GlobalAveragePool" || node.op == "GlobalMaxPool";
  return (windowed || global) && node.inputs.size() == 1 && (node.outputs.size() == 1 || node.outputs[1].empty());
}

// An elementwise program that keeps finite inputs finite (so the extra channels, zeros or
// what the ops make of zeros, never become Inf or NaN, which a zero weight would not
// cancel): no division by a computed value, no exp, log, sqrt, pow or reciprocal.
bool keeps_finite(const Node& node) {
  for (const ElementwiseInstruction& ins : ElementwiseProgram::parse(node.attrs.get_string("program")).code) {
    switch (ins.op) {
      case ElementwiseOp::exp:
      case ElementwiseOp::log:
      case ElementwiseOp::sqrt:
      case ElementwiseOp::pow:
      case ElementwiseOp::reciprocal:
        return false;
      case ElementwiseOp::div:
        if (ins.args[1].kind != ElementwiseOperand::Kind::immediate || ins.args[1].value == 0.0f) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

// The dim of `operand` that broadcasts against the channels of a rank-4 output (shapes
// aligned at their ends), or -1 when it has none or it is 1.
int channel_dim(const std::vector<int64_t>& operand) {
  const int dim = static_cast<int>(operand.size()) - 3;
  return dim >= 0 && operand[static_cast<size_t>(dim)] != 1 ? dim : -1;
}

// Whether `node` may write its output widened, given the values `wide` widened: what it
// reads of the channels must be widened too (a constant is widened here).
bool writes_wide(const Graph& graph, const Node& node, const Widths& wide) {
  const int r = node.op == "NeeConv" ? nee_conv_residual_slot(node) : -1;
  if (r >= 0 && !wide.count(node.inputs[static_cast<size_t>(r)])) return false;
  if (is_dense_conv(graph, node)) return true;
  if (conv_groups(graph, node).inputs != 0) return is_fitting_grouped_conv(graph, node, wide);
  if (is_pool(node)) return wide.count(node.inputs[0]) != 0;
  if (node.op != "NeeElementwise" || !keeps_finite(node)) return false;
  bool any_wide = false;
  for (const std::string& in : node.inputs) {
    any_wide = any_wide || wide.count(in) != 0;
    if (channel_dim(graph.type_of(in).shape) >= 0 && !wide.count(in) && !graph.constant(in)) return false;
  }
  return any_wide;
}

// Whether `reader` takes `value` widened at input slot `slot`: a dense conv as its X
// always, any other as an operand of a node writing its output widened.
bool reads_wide(const Graph& graph, const Node& reader, size_t slot, const Widths& wide) {
  if (is_dense_conv(graph, reader) && slot == 0) return true;
  return wide.count(reader.outputs[0]) != 0 && (reader.op != "NeeConv" || slot == 0 ||
                                                static_cast<int>(slot) == nee_conv_residual_slot(reader));
}

// The widths of `values`. The values a node keeps in one channel space share a width: an
// elementwise op's output and widened operands, a pool's input and output, a conv's output
// and residual, and a grouped conv's X and output when its groups keep their channels.
// Each such set widens to the next multiple of 16 or, where grouped convs of g channels a
// group join it, of lcm(16, g), so their groups stay whole: RegNetY-1.6GF's 5 and 37
// groups of 24 on 120 and 888 channels widen to 144 and 912, which widen_conv_groups
// merges in pairs into blocks. A set that would grow by more than half takes the next
// multiple of 16, and its grouped convs stay as they are.
Widths channel_widths(const Graph& graph, const std::set<std::string>& values) {
  std::map<std::string, std::string> parent;
  for (const std::string& v : values) parent[v] = v;
  const auto root = [&](std::string v) {
    while (parent.at(v) != v) v = parent.at(v);
    return v;
  };
  const auto join = [&](const std::string& a, const std::string& b) {
    if (values.count(b)) parent[root(a)] = root(b);
  };
  std::vector<std::pair<std::string, int64_t>> group_widths;
  for (const Node& node : graph.nodes()) {
    const std::string& out = node.outputs[0];
    if (!values.count(out)) continue;
    const int r = node.op == "NeeConv" ? nee_conv_residual_slot(node) : -1;
    if (r >= 0) join(out, node.inputs[static_cast<size_t>(r)]);
    const ConvGroups groups = conv_groups(graph, node);
    if (groups.inputs != 0 && groups.inputs == groups.outputs) {
      join(out, node.inputs[0]);
      group_widths.emplace_back(out, groups.inputs);
    } else if (is_pool(node) || node.op == "NeeElementwise") {
      for (const std::string& in : node.inputs) join(out, in);
    }
  }
  std::map<std::string, int64_t> multiple;  // by set
  for (const auto& [value, width] : group_widths) {
    int64_t& m = multiple.try_emplace(root(value), kActivationBlock).first->second;
    m = std::lcm(m, width);
  }
  Widths widths;
  for (const std::string& v : values) {
    const int64_t c = graph.type_of(v).shape[1];
    const auto m = multiple.find(root(v));
    const int64_t whole_groups = m == multiple.end() ? 0 : (c + m->second - 1) / m->second * m->second;
    widths[v] = whole_groups != 0 && whole_groups - c <= c / 2 ? whole_groups : padded_channels(c);
  }
  return widths;
}

// The values to widen and their widths: the largest set in which every producer writes
// wide (writes_wide) and every value has a reader that takes it widened, so that no conv
// output is widened only to be cut back for readers that all want the model's channels.
Widths values_to_widen(const Graph& graph) {
  std::set<std::string> values;
  for (const Node& node : graph.nodes()) {
    const bool candidate = node.op == "NeeConv" || node.op == "NeeElementwise" || is_pool(node);
    if (candidate && widenable(graph, node.outputs[0])) values.insert(node.outputs[0]);
  }
  for (bool changed = true; changed;) {
    changed = false;
    const Widths wide = channel_widths(graph, values);
    for (const Node& node : graph.nodes()) {
      if (!wide.count(node.outputs[0])) continue;
      bool read_wide = false;
      for (const Node* reader : graph.consumers(node.outputs[0])) {
        for (size_t s = 0; s < reader->inputs.size() && !read_wide; ++s) {
          read_wide = reader->inputs[s] == node.outputs[0] && reads_wide(graph, *reader, s, wide);
        }
      }
      if (!read_wide || !writes_wide(graph, node, wide)) {
        values.erase(node.outputs[0]);
        changed = true;
      }
    }
  }
  return channel_widths(graph, values);
}

// `t` with dim `dim` grown to `extent`, the new entries zero.
Tensor widened_constant(const Tensor& t, size_t dim, int64_t extent) {
  std::vector<int64_t> shape = t.shape();
  const int64_t old_extent = shape[dim];
  shape[dim] = extent;
  Tensor out(DType::f32, shape);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  const float* src = t.data_as<float>();
  float* dst = out.data_as<float>();
  for (int64_t o = 0; o < outer; ++o) {
    std::copy_n(src + o * old_extent * inner, old_extent * inner, dst + o * extent * inner);
  }
  return out;
}

// A conv's weights' origin (Graph::dequantized_origin) widened as widen_constant widens them:
// the new channels' integers their zero points (the zeros it adds), new output channels'
// scales 1 and zero points 0; nullopt where the scales and zero points are neither one value
// nor one an output channel (quantize_conv_activations then leaves the conv's f32 weights).
std::optional<DequantizedOrigin> widened_origin(const DequantizedOrigin& origin, const std::vector<int64_t>& shape) {
  const std::vector<int64_t>& old = origin.x.shape();
  const bool per_tensor = origin.scale.elements() == 1;
  const bool has_zero = !origin.zero_point.empty_storage();
  if (old.size() != 4 || origin.block_size != 0 || (!per_tensor && origin.axis != 0) ||
      (has_zero && origin.zero_point.elements() != origin.scale.elements())) {
    return std::nullopt;
  }
  DequantizedOrigin wide;
  wide.axis = 0;
  wide.scale = per_tensor ? origin.scale : Tensor(DType::f32, {shape[0]});
  if (has_zero) wide.zero_point = per_tensor ? origin.zero_point : Tensor(origin.zero_point.dtype(), {shape[0]});
  if (!per_tensor) {
    std::fill_n(wide.scale.data_as<float>(), shape[0], 1.0f);
    std::copy_n(origin.scale.data_as<float>(), old[0], wide.scale.data_as<float>());
    if (has_zero) {
      std::copy_n(static_cast<const uint8_t*>(origin.zero_point.data()), old[0],
                  static_cast<uint8_t*>(wide.zero_point.data()));
    }
  }
  wide.x = Tensor(origin.x.dtype(), shape);
  const auto* from = static_cast<const uint8_t*>(origin.x.data());
  auto* to = static_cast<uint8_t*>(wide.x.data());
  const int64_t taps = old[2] * old[3];
  for (int64_t o = 0; o < shape[0]; ++o) {
    const uint8_t zero = has_zero ? static_cast<const uint8_t*>(wide.zero_point.data())[per_tensor ? 0 : o] : 0;
    std::fill_n(to + o * shape[1] * taps, shape[1] * taps, zero);
    if (o < old[0]) std::copy_n(from + o * old[1] * taps, old[1] * taps, to + o * shape[1] * taps);
  }
  return wide;
}

// The constant `name` with its dims `dims` grown to `extents` (zeros), added once under a
// name that says so; convs sharing a constant share its widened copy, and its origin.
std::string widen_constant(Graph& graph, const std::string& name, const std::vector<size_t>& dims,
                           const std::vector<int64_t>& extents) {
  Tensor t = f32_constant(graph, name)->clone();
  std::string wide_name = name + ".wide";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (t.shape()[dims[i]] == extents[i]) continue;
    t = widened_constant(t, dims[i], extents[i]);
  }
  for (int64_t d : t.shape()) wide_name += "_" + std::to_string(d);
  if (graph.has_value(wide_name)) return wide_name;
  graph.add_constant(wide_name, t);
  if (const DequantizedOrigin* origin = graph.dequantized_origin(name)) {
    if (std::optional<DequantizedOrigin> wide = widened_origin(*origin, t.shape())) {
      graph.set_dequantized_origin(wide_name, *wide);
    }
  }
  return wide_name;
}

// `value` cut back to the model's channels, by one Slice per value.
std::string narrowed(Graph& graph, const std::string& value, int64_t channels, std::vector<Node>& slices) {
  const std::string name = value + ".narrow";
  if (graph.has_value(name)) return name;
  TensorType t = graph.type_of(value);
  t.shape[1] = channels;
  graph.add_value(name, t);
  Node slice;
  slice.op = "Slice";
  slice.name = name;
  slice.inputs = {value};
  slice.outputs = {name};
  slice.attrs.set("starts", std::vector<int64_t>(4, 0));
  slice.attrs.set("steps", std::vector<int64_t>(4, 1));
  slices.push_back(std::move(slice));
  return name;
}

}  // namespace

void pad_channels(Graph& graph) {
  const Widths wide = values_to_widen(graph);
  if (wide.empty()) return;
  std::map<std::string, int64_t> channels;  // each widened value's channels in the model
  for (const auto& [v, width] : wide) channels[v] = graph.type_of(v).shape[1];

  std::vector<std::string> replaced;  // constants the widened copies replace
  std::vector<Node> slices;
  for (Node& node : graph.nodes()) {
    const bool out_wide = wide.count(node.outputs[0]) != 0;
    const int64_t out = out_wide ? wide.at(node.outputs[0]) : 0;
    // What reads the channels is widened with zeros: a dense conv's weights along O (when
    // its output is widened) and C (when its X is), a grouped conv's along O (more
    // groups), biases and the per-channel constants of elementwise ops along the channels.
    if (is_dense_conv(graph, node) || (out_wide && is_fitting_grouped_conv(graph, node, wide))) {
      const std::vector<int64_t>& w = graph.constant(node.inputs[1])->shape();
      const bool dense = is_dense_conv(graph, node);
      const int64_t group_outputs = w[0] / node.attrs.get_int("group", 1);
      const int64_t in = dense && wide.count(node.inputs[0]) ? wide.at(node.inputs[0]) : w[1];
      if (out_wide || in != w[1]) {
        replaced.push_back(node.inputs[1]);
        node.inputs[1] = widen_constant(graph, node.inputs[1], {0, 1}, {out_wide ? out : w[0], in});
      }
      if (out_wide && node.attrs.get_int("bias", 0) != 0) {
        replaced.push_back(node.inputs[2]);
        node.inputs[2] = widen_constant(graph, node.inputs[2], {0}, {out});
      }
      if (out_wide && !dense) node.attrs.set("group", out / group_outputs);
    } else if (out_wide && node.op == "NeeElementwise") {
      for (std::string& in : node.inputs) {
        const int dim = channel_dim(graph.type_of(in).shape);
        if (dim < 0 || !graph.constant(in)) continue;
        replaced.push_back(in);
        in = widen_constant(graph, in, {static_cast<size_t>(dim)}, {out});
      }
    }
    // A widened value read by a node that does not take it so is cut back first.
    for (size_t s = 0; s < node.inputs.size(); ++s) {
      if (wide.count(node.inputs[s]) && !reads_wide(graph, node, s, wide)) {
        node.inputs[s] = narrowed(graph, node.inputs[s], channels.at(node.inputs[s]), slices);
      }
    }
  }
  for (const auto& [v, width] : wide) {
    TensorType t = graph.type_of(v);
    t.shape[1] = width;
    graph.set_type(v, t);
  }
  for (Node& s : slices) graph.add_node(std::move(s));
  for (const std::string& c : replaced) {
    if (graph.has_value(c) && graph.consumers(c).empty() && !graph.is_output(c)) graph.remove_value(c);
  }
  graph.sort_topologically();
}

}  // namespace nee
