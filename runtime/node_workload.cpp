#include "runtime/node_workload.h"

#include <map>
#include <numeric>

#include "core/activation_layout.h"
#include "core/attention_workload.h"
#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/elementwise_workload.h"
#include "core/error.h"
#include "core/layernorm_workload.h"
#include "core/matmul_workload.h"
#include "core/pool2d_workload.h"
#include "core/resize_workload.h"
#include "core/softmax_workload.h"
#include "core/strided_copy_workload.h"

namespace nee {

int nee_conv_residual_slot(const Node& node) {
  if (node.attrs.get_int("residual", 0) == 0) return -1;
  const int bias_input = static_cast<int>(conv2d_bias_input(nee_conv_attrs(node)));
  return node.attrs.get_int("bias", 0) != 0 ? bias_input + 1 : bias_input;
}

Conv2dAttrs nee_conv_attrs(const Node& node) {
  Conv2dAttrs attrs;
  attrs.group = node.attrs.get_int("group", 1);
  attrs.activation = conv_activation_from_string(node.attrs.get_string("activation"));
  attrs.clip_min = node.attrs.get_float("clip_min");
  attrs.clip_max = node.attrs.get_float("clip_max");
  attrs.weight_block = node.attrs.get_int("weight_block", 0);
  attrs.input_block = node.attrs.get_int("input_block", 0);
  attrs.output_block = node.attrs.get_int("output_block", 0);
  attrs.winograd_tile = node.attrs.get_int("winograd_tile", 0);
  attrs.group_width = node.attrs.get_int("group_width", 0);
  attrs.a_bits = node.attrs.get_int("a_bits", 0);
  if (node.attrs.has("requantize_scale")) {
    attrs.requantize_scale = node.attrs.get_float("requantize_scale");
    attrs.requantize_zero = node.attrs.get_int("requantize_zero");
    attrs.requantize_low = node.attrs.get_int("requantize_low");
    attrs.requantize_high = node.attrs.get_int("requantize_high");
  }
  attrs.frame_taps = node.attrs.get_int("frame_taps", 0);
  if (attrs.frame_taps != 0) {
    attrs.frame_stride = node.attrs.get_int("frame_stride");
    attrs.frame_dilation = node.attrs.get_int("frame_dilation");
    attrs.frame_pad = node.attrs.get_int("frame_pad");
    attrs.frames_in = node.attrs.get_int("frames_in");
    attrs.frames_out = node.attrs.get_int("frames_out");
  }
  return attrs;
}

// NeeConv's inputs are X, W, [B], [R] (X, W, the multipliers, X's scale and zero point, [B],
// [R] in an integer conv) with no omitted names; pads are ONNX's [top, left, bottom, right].
static std::optional<Workload> conv2d_workload_of(const Graph& graph, const Node& node) {
  std::vector<TensorType> operands;
  for (const std::string& in : node.inputs) operands.push_back(graph.type_of(in));
  const bool has_bias = node.attrs.get_int("bias") != 0;
  const bool has_residual = node.attrs.get_int("residual") != 0;
  const size_t bias_input = conv2d_bias_input(nee_conv_attrs(node));
  if (operands.size() != bias_input + has_bias + has_residual) return std::nullopt;
  for (size_t i = 0; i < bias_input; ++i) {
    if (operands[i].dtype != conv2d_operand_dtype(nee_conv_attrs(node), i)) return std::nullopt;
  }
  const std::vector<int64_t> strides = node.attrs.get_ints("strides");
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  const std::vector<int64_t> dilations = node.attrs.get_ints("dilations");
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2) return std::nullopt;
  Conv2dAttrs attrs = nee_conv_attrs(node);
  attrs.strides = {strides[0], strides[1]};
  attrs.pads = {pads[0], pads[1], pads[2], pads[3]};
  attrs.dilations = {dilations[0], dilations[1]};
  // The workload takes every operand in ONNX's layout and blocks them itself.
  try {
    std::vector<int64_t> y = graph.type_of(node.outputs[0]).shape;
    if (attrs.output_block != 0) {
      y = unblocked_activation_shape(y);
      if (has_residual) operands.back().shape = unblocked_activation_shape(operands.back().shape);
    }
    if (attrs.input_block != 0) operands[0].shape = unblocked_activation_shape(operands[0].shape);
    if (attrs.frame_taps != 0) operands[0].shape = conv2d_gathered_shape(operands[0].shape, attrs);
    if (attrs.a_bits != 0) {
      // [ceil(O/16), ceil(C/4), KH, KW, 16, 4] -> [O, C, KH, KW]
      const std::vector<int64_t> packed = operands[1].shape;
      if (y.size() != 4 || packed.size() != 6 || operands[0].shape.size() != 4) return std::nullopt;
      operands[1].shape = {y[1], operands[0].shape[1], packed[2], packed[3]};
      if (integer_conv_weight_shape(operands[1].shape) != packed) return std::nullopt;
    } else if (attrs.weight_block != 0) {
      if (y.size() != 4) return std::nullopt;
      operands[1].shape = conv2d_oihw_weight_shape(operands[1].shape, y[1], attrs);
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  const TensorType* bias = has_bias ? &operands[bias_input] : nullptr;
  const TensorType* residual = has_residual ? &operands.back() : nullptr;
  try {
    Workload w = attrs.a_bits != 0 ? make_integer_conv2d_workload(operands[0], operands[1], operands[3], operands[4],
                                                                  bias, residual, attrs)
                                   : make_conv2d_workload(operands[0], operands[1], bias, residual, attrs);
    if (!(w.output == graph.type_of(node.outputs[0]))) return std::nullopt;
    return w;
  } catch (const Error&) {
    return std::nullopt;  // not a shape the conv2d family covers (e.g. an empty dim)
  }
}

// NeeElementwise's inputs are the program's slots in order; a scalar or empty output
// stays on the reference provider.
static std::optional<Workload> elementwise_workload_of(const Graph& graph, const Node& node) {
  std::vector<TensorType> inputs;
  for (const std::string& in : node.inputs) inputs.push_back(graph.type_of(in));
  const TensorType& output = graph.type_of(node.outputs[0]);
  if (output.shape.empty() || output.elements() == 0) return std::nullopt;
  return make_elementwise_workload(inputs, output, ElementwiseProgram::parse(node.attrs.get_string("program")));
}

// The graph's output type must be the workload's: a shape the family computes otherwise
// (e.g. a pool's ceil_mode read differently) stays on the reference provider.
static std::optional<Workload> matching_output(const Graph& graph, const Node& node, Workload w) {
  if (!(w.output == graph.type_of(node.outputs[0]))) return std::nullopt;
  return w;
}

// MaxPool / AveragePool as the importer normalized them (explicit kernel_shape, strides,
// dilations, pads, ceil_mode); MaxPool's Indices output is not computed by the family.
static std::optional<Workload> pool2d_workload_of(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || (node.outputs.size() > 1 && !node.outputs[1].empty())) return std::nullopt;
  const TensorType& x = graph.type_of(node.inputs[0]);
  // block_activations marks a pool of a blocked tensor; X's type is then the blocked one.
  const int64_t block = node.attrs.get_int("input_block", 0);
  const TensorType nchw = block == 0 ? x : TensorType{x.dtype, unblocked_activation_shape(x.shape)};
  if (node.op == "GlobalAveragePool" || node.op == "GlobalMaxPool") {
    const PoolKind kind = node.op == "GlobalMaxPool" ? PoolKind::max : PoolKind::average;
    return matching_output(graph, node, make_global_pool2d_workload(nchw, kind, block));
  }
  const std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape");
  const std::vector<int64_t> strides = node.attrs.get_ints("strides");
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  const std::vector<int64_t> dilations = node.attrs.get_ints("dilations");
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4 || dilations.size() != 2) return std::nullopt;
  Pool2dAttrs attrs;
  attrs.kind = node.op == "MaxPool" ? PoolKind::max : PoolKind::average;
  attrs.kernel = {kernel[0], kernel[1]};
  attrs.strides = {strides[0], strides[1]};
  attrs.pads = {pads[0], pads[1], pads[2], pads[3]};
  attrs.dilations = {dilations[0], dilations[1]};
  attrs.count_include_pad = node.attrs.get_int("count_include_pad", 0) != 0;
  attrs.block = block;
  return matching_output(graph, node, make_pool2d_workload(nchw, attrs, node.attrs.get_int("ceil_mode", 0) != 0));
}

// NeeLayerNorm's inputs are X, Scale and an optional B (see passes.h).
static std::optional<Workload> layernorm_workload_of(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs.size() > 3) return std::nullopt;
  const bool has_bias = node.inputs.size() == 3 && !node.inputs[2].empty();
  const TensorType bias = has_bias ? graph.type_of(node.inputs[2]) : TensorType{};
  return matching_output(graph, node,
                         make_layernorm_workload(graph.type_of(node.inputs[0]), graph.type_of(node.inputs[1]),
                                                 has_bias ? &bias : nullptr, node.attrs.get_int("axis"),
                                                 node.attrs.get_float("epsilon"), node.attrs.get_int("rms", 0) != 0));
}

// Transpose and Slice read as the reference kernels read them (runtime/reference/):
// Transpose's `perm` (reversed dims when absent, ONNX's default); Slice's per-dim
// `starts` and `steps`, which the importer resolved from its starts, ends, axes and steps
// (inputs that must be constants at import from opset 10, attributes before), clamping
// negative and out-of-range values as ONNX says, with its output extents. A Slice
// without them (not imported) or with a negative step (a reversed read, which the
// family does not cover) stays on the reference kernels. Only the data input is the
// kernel's operand.
static std::optional<Workload> strided_copy_workload_of(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0].empty()) return std::nullopt;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const size_t rank = x.shape.size();
  StridedCopyAttrs attrs;
  std::vector<int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  if (node.op == "Transpose") {
    attrs.perm = node.attrs.get_ints("perm", std::vector<int64_t>(identity.rbegin(), identity.rend()));
    attrs.starts.assign(rank, 0);
    attrs.steps.assign(rank, 1);
  } else {
    attrs.perm = identity;
    attrs.starts = node.attrs.get_ints("starts", {});
    attrs.steps = node.attrs.get_ints("steps", {});
    if (attrs.starts.size() != rank || attrs.steps.size() != rank) return std::nullopt;
  }
  return make_strided_copy_workload(x, attrs, graph.type_of(node.outputs[0]).shape);
}

// Resize as the importer stores it (importer/ops/resize.cpp): X its operand (roi, scales
// and sizes are constants read at import), `scales` when scales were given, else the
// output's extents over the input's; with input_block (block_activations), X is
// channel-blocked and H and W are the dims before its lanes. Resizes of any other dim,
// cubic interpolation, antialiasing and tf_crop_and_resize stay on the reference kernels.
static std::optional<Workload> resize_workload_of(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0].empty() || node.attrs.get_int("antialias", 0) != 0) return std::nullopt;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t>& out = graph.type_of(node.outputs[0]).shape;
  const size_t rank = x.shape.size();
  if (rank < 2 || out.size() != rank) return std::nullopt;
  const std::vector<float> scales = node.attrs.has("scales") ? node.attrs.get_floats("scales") : std::vector<float>{};
  if (!scales.empty() && scales.size() != rank) return std::nullopt;
  const int64_t lanes = node.attrs.get_int("input_block", 0);
  const size_t w_dim = rank - (lanes != 0 ? 2 : 1);
  if (w_dim < 1) return std::nullopt;
  for (size_t d = 0; d < rank && !scales.empty(); ++d) {
    if (d + 1 != w_dim && d != w_dim && scales[d] != 1.0f) return std::nullopt;
  }
  const auto scale = [&](size_t d) {
    return scales.empty() ? static_cast<double>(out[d]) / static_cast<double>(x.shape[d])
                          : static_cast<double>(scales[d]);
  };
  ResizeAttrs attrs;
  attrs.mode = node.attrs.get_string("mode");
  attrs.coordinates = node.attrs.get_string("coordinate_transformation_mode");
  attrs.nearest_mode = node.attrs.get_string("nearest_mode");
  attrs.scale_h = scale(w_dim - 1);
  attrs.scale_w = scale(w_dim);
  attrs.lanes = lanes;
  return make_resize_workload(x, attrs, out);
}

// NeeAttention's inputs are Q, K, V and an optional mask; its attributes layout ("gsd" or
// "sgd"), scale and mask_scale (see passes.h).
static std::optional<Workload> attention_workload_of(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 3 || node.inputs.size() > 4) return std::nullopt;
  AttentionAttrs attrs;
  attrs.layout = node.attrs.get_string("layout") == "sgd" ? AttentionLayout::sequence_major
                                                         : AttentionLayout::group_major;
  attrs.scale = node.attrs.get_float("scale");
  attrs.mask_scale = node.attrs.get_float("mask_scale", 1.0f);
  const bool masked = node.inputs.size() == 4 && !node.inputs[3].empty();
  const TensorType mask = masked ? graph.type_of(node.inputs[3]) : TensorType{};
  return matching_output(graph, node,
                         make_attention_workload(graph.type_of(node.inputs[0]), graph.type_of(node.inputs[1]),
                                                 graph.type_of(node.inputs[2]), masked ? &mask : nullptr, attrs));
}

std::optional<Workload> workload_of(const Graph& graph, const Node& node) {
  if (node.op == "NeeConv") return conv2d_workload_of(graph, node);
  try {
    if (node.op == "NeeElementwise") return elementwise_workload_of(graph, node);
    if (node.op == "MaxPool" || node.op == "AveragePool" || node.op == "GlobalAveragePool" ||
        node.op == "GlobalMaxPool") {
      return pool2d_workload_of(graph, node);
    }
    // Softmax before opset 13 (coerce_2d) normalizes over several dims: not this family.
    if (node.op == "Softmax" && node.attrs.get_int("coerce_2d", 0) == 0) {
      const TensorType& x = graph.type_of(node.inputs[0]);
      return matching_output(graph, node, make_softmax_workload(x, node.attrs.get_int("axis")));
    }
    if (node.op == "NeeLayerNorm") return layernorm_workload_of(graph, node);
    if (node.op == "NeeAttention") return attention_workload_of(graph, node);
    if (node.op == "Transpose" || node.op == "Slice") return strided_copy_workload_of(graph, node);
    if (node.op == "Resize") return resize_workload_of(graph, node);
  } catch (const Error&) {
    return std::nullopt;  // a dtype, rank or shape the family does not cover
  }
  if (node.op != "NeeMatMul") return std::nullopt;
  MatmulAttrs attrs;
  attrs.b_bits = node.attrs.get_int("b_bits", 0);
  attrs.a_bits = node.attrs.get_int("a_bits", 0);
  std::vector<TensorType> operands;
  for (const std::string& in : node.inputs) {
    if (in.empty()) continue;
    const TensorType& type = graph.type_of(in);
    if (type.dtype != matmul_operand_dtype(attrs, operands.size())) return std::nullopt;
    for (int64_t d : type.shape) {
      if (d <= 0) return std::nullopt;
    }
    operands.push_back(type);
  }
  if (operands.size() < 2 || operands[0].shape.size() < 2 || operands[1].shape.size() < 2) {
    return std::nullopt;
  }
  attrs.trans_a = node.attrs.get_int("trans_a", 0) != 0;
  attrs.trans_b = node.attrs.get_int("trans_b", 0) != 0;
  attrs.alpha = node.attrs.get_float("alpha", 1.0f);
  attrs.beta = node.attrs.get_float("beta", 1.0f);
  attrs.relu = node.attrs.get_int("relu", 0) != 0;
  attrs.gelu = node.attrs.get_int("gelu", 0) != 0;
  attrs.b_block = node.attrs.get_int("b_block", 0);
  attrs.b_columns = node.attrs.get_int("b_columns", 0);
  attrs.b_group = node.attrs.get_int("b_group", 0);
  const size_t bias_input = matmul_bias_input(attrs);
  const TensorType* bias = operands.size() > bias_input ? &operands[bias_input] : nullptr;
  if (attrs.a_bits != 0) {
    if (operands.size() < bias_input) return std::nullopt;
    return make_integer_matmul_workload(operands[0], operands[1], operands[2], operands[3], operands[4], bias, attrs);
  }
  if (attrs.b_bits == 0) return make_matmul_workload(operands[0], operands[1], bias, attrs);
  if (operands.size() <= 2) return std::nullopt;
  return make_quantized_matmul_workload(operands[0], operands[1], operands[2], bias, attrs);
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
