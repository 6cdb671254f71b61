#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/activation_layout.h"
#include "core/conv_weight_layout.h"
#include "runtime/node_workload.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/transpose_chains.h"

namespace nee {

namespace {

bool is_depthwise(const Graph& graph, const Node& node) {
  const int64_t group = node.attrs.get_int("group", 1);
  const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
  const Tensor* w = graph.constant(node.inputs[1]);
  return group > 1 && x.size() == 4 && x[1] == group && can_block_activations(x) && w && w->shape().size() == 4 &&
         w->shape()[0] == group && node.attrs.get_int("weight_block", 0) == 0;
}

// A NeeConv whose kernel may read and write channel-blocked activations (only
// conv2d-blocked-cpu schedules them): one with blocked weights (group 1 or groups of whole
// blocks, pack_conv_weights), or depthwise over 16k channels with constant weights that
// this pass may block.
bool reads_blocked(const Graph& graph, const Node& node) {
  if (node.op != "NeeConv" || graph.type_of(node.outputs[0]).shape.size() != 4) return false;
  return node.attrs.get_int("weight_block", 0) == kConvWeightBlock || is_depthwise(graph, node);
}

// `value` converted to `to` ("nchw" or "nchw16c"), by nodes made once per value and
// direction; returns the converted value's name. Planes of one pixel hold the same bytes
// in both layouts, so a Reshape views them; larger ones take a NeeLayout copy, or with
// `transposes` (GraphOptions::layouts_as_transposes) a Transpose between Reshape views,
// [N, C/16, 16, H, W] <-> [N, C/16, H, W, 16], which runs as a bundle kernel where NeeLayout
// runs on the reference kernels (SegFormer's four took 739-844 us a run, `nee-run
// --profile`).
std::string converted(Graph& graph, const std::string& value, const std::string& to, std::vector<Node>& conversions,
                      bool transposes) {
  const std::string name = value + "." + to;
  if (graph.has_value(name)) return name;
  const TensorType& from = graph.type_of(value);
  const bool to_nchw = to == "nchw";
  const std::vector<int64_t> shape =
      to_nchw ? unblocked_activation_shape(from.shape) : blocked_activation_shape(from.shape);
  if (shape[2] * shape[3] == 1) {
    conversions.push_back(reshape_view(graph, value, name, shape));
    return name;
  }
  const std::vector<int64_t>& nchw = to_nchw ? shape : from.shape;
  if (transposes) {
    const std::vector<int64_t> planes = {nchw[0], nchw[1] / kActivationBlock, kActivationBlock, nchw[2], nchw[3]};
    const std::vector<int64_t> lanes = {nchw[0], nchw[1] / kActivationBlock, nchw[2], nchw[3], kActivationBlock};
    const std::string source = value + "." + to + "/view", copied = value + "." + to + "/copied";
    conversions.push_back(reshape_view(graph, value, source, to_nchw ? lanes : planes));
    graph.add_value(copied, TensorType{from.dtype, to_nchw ? planes : lanes});
    Node transpose = single_output_node("Transpose", {source}, copied);
    transpose.name = copied;
    transpose.attrs.set("perm", to_nchw ? std::vector<int64_t>{0, 1, 4, 2, 3} : std::vector<int64_t>{0, 1, 3, 4, 2});
    conversions.push_back(std::move(transpose));
    conversions.push_back(reshape_view(graph, copied, name, shape));
    return name;
  }
  graph.add_value(name, TensorType{from.dtype, shape});
  Node node;
  node.op = "NeeLayout";
  node.name = name;
  node.inputs = {value};
  node.outputs = {name};
  node.attrs.set("to", to);
  conversions.push_back(std::move(node));
  return name;
}

// A Concat of NCHW f32 tensors along channels, every one of them a multiple of 16
// channels: on blocked tensors it is the same Concat along the block axis (axis 1 of
// [N, C/16, H, W, 16]).
bool concats_channels(const Graph& graph, const Node& node) {
  if (node.op != "Concat" || node.attrs.get_int("axis", -1) != 1 || graph.is_output(node.outputs[0])) return false;
  const TensorType& y = graph.type_of(node.outputs[0]);
  if (y.dtype != DType::f32 || !can_block_activations(y.shape)) return false;
  for (const std::string& in : node.inputs) {
    if (graph.constant(in) || !can_block_activations(graph.type_of(in).shape)) return false;
  }
  return true;
}

// A MaxPool or AveragePool of an NCHW f32 tensor of 16k channels, without MaxPool's
// Indices: pooling each channel alone, it pools a blocked tensor's 16 lanes the same way.
bool pools_channels(const Graph& graph, const Node& node) {
  if ((node.op != "MaxPool" && node.op != "AveragePool") || node.inputs.size() != 1 ||
      graph.is_output(node.outputs[0]) || (node.outputs.size() > 1 && !node.outputs[1].empty())) {
    return false;
  }
  const TensorType& x = graph.type_of(node.inputs[0]);
  return x.dtype == DType::f32 && can_block_activations(x.shape) && node.attrs.get_ints("kernel_shape").size() == 2;
}

// A NeeFrameGather of frames [N * T, C, H, W] (lower_3d_to_frames) whose groups are whole
// channel blocks: it gathers a blocked frame's block planes as it gathers planes.
bool gathers_frames(const Graph& graph, const Node& node) {
  if (node.op != "NeeFrameGather" || node.attrs.get_int("input_frames", 0) == 0) return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  return x.dtype == DType::f32 && can_block_activations(x.shape) &&
         (x.shape[1] / kActivationBlock) % node.attrs.get_int("group") == 0;
}

// A NeeGroupNorm of an NCHW f32 tensor of 16k channels: its kernel sums and scales a
// blocked tensor's channels lane by lane.
bool normalizes_groups(const Graph& graph, const Node& node) {
  if (node.op != "NeeGroupNorm" || graph.is_output(node.outputs[0])) return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  return x.dtype == DType::f32 && can_block_activations(x.shape);
}

// A Pad of an NCHW f32 tensor of 16k channels around its planes only: on a blocked
// tensor it is the same Pad of dims 2 and 3 (any mode: each lane pads its own plane).
bool pads_planes(const Graph& graph, const Node& node) {
  if (node.op != "Pad" || graph.is_output(node.outputs[0])) return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  return x.dtype == DType::f32 && can_block_activations(x.shape) && pads.size() == 8 && pads[0] == 0 &&
         pads[1] == 0 && pads[4] == 0 && pads[5] == 0;
}

// A Resize of an NCHW f32 tensor of 16k channels along H and W only, nearest or linear,
// not antialiased, with no region of interest and no transformation that moves indices
// at scale 1 (tf_half_pixel_for_nn) or that the resize family does not compute
// (half_pixel_symmetric): on a blocked tensor it is the same Resize of dims 2 and 3, each
// lane resized as its own plane (a U-Net's or ESRGAN's nearest upsampling between convs).
bool resizes_planes(const Graph& graph, const Node& node) {
  if (node.op != "Resize" || graph.is_output(node.outputs[0])) return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t>& y = graph.type_of(node.outputs[0]).shape;
  const std::string mode = node.attrs.get_string("mode");
  const std::string coordinates = node.attrs.get_string("coordinate_transformation_mode");
  if (x.dtype != DType::f32 || !can_block_activations(x.shape) || y.size() != 4 || y[0] != x.shape[0] ||
      y[1] != x.shape[1] || (mode != "nearest" && mode != "linear") || coordinates == "tf_crop_and_resize" ||
      coordinates == "tf_half_pixel_for_nn" || coordinates == "half_pixel_symmetric" ||
      node.attrs.get_int("antialias", 0) != 0) {
    return false;
  }
  const std::vector<float> scales = node.attrs.has("scales") ? node.attrs.get_floats("scales") : std::vector<float>{};
  return scales.empty() || (scales.size() == 4 && scales[0] == 1.0f && scales[1] == 1.0f);
}

// How an elementwise operand broadcasts against a blocked output of NCHW shape `nchw`:
// one that is per channel or the same over the planes ([n, c, 1, 1] with n 1 or N and c 1
// or C, missing leading dims read as 1) as [n, C/16 or 1, 1, 1, 16 or 1], the same bytes
// broadcast the same way; none for any other broadcast (along H or W, which would align
// with the block's lanes).
std::optional<std::vector<int64_t>> blocked_broadcast_shape(std::vector<int64_t> operand,
                                                            const std::vector<int64_t>& nchw) {
  if (operand.size() > 4) return std::nullopt;
  operand.insert(operand.begin(), 4 - operand.size(), 1);
  if ((operand[0] != 1 && operand[0] != nchw[0]) || (operand[1] != 1 && operand[1] != nchw[1]) || operand[2] != 1 ||
      operand[3] != 1) {
    return std::nullopt;
  }
  const bool per_channel = operand[1] != 1;
  return std::vector<int64_t>{operand[0], per_channel ? operand[1] / kActivationBlock : 1, 1, 1,
                              per_channel ? kActivationBlock : 1};
}

// A NeeElementwise with an f32 output of 16k channels (not a graph output) whose every
// operand is either computed and of the output's shape, or broadcast per channel or over
// everything: blocking the former and viewing the latter as blocked_broadcast_shape,
// it computes the blocked output element for element (SE blocks' scaling Mul, or
// DenseNet's lone BatchNormalization as a Mul and Add, between blocked convs).
bool elementwise_carries(const Graph& graph, const Node& node) {
  if (node.op != "NeeElementwise" || graph.is_output(node.outputs[0])) return false;
  const TensorType& y = graph.type_of(node.outputs[0]);
  if (y.dtype != DType::f32 || !can_block_activations(y.shape)) return false;
  for (const std::string& in : node.inputs) {
    const std::vector<int64_t>& shape = graph.type_of(in).shape;
    const bool full = shape == y.shape;
    if (full ? graph.constant(in) != nullptr : !blocked_broadcast_shape(shape, y.shape)) return false;
  }
  return true;
}

bool is_global_pool(const Node& node) { return node.op == "GlobalAveragePool" || node.op == "GlobalMaxPool"; }

// Whether `reader` takes `value` in the blocked layout: one of `convs` as its X or its
// residual, or one of `carriers`.
bool reads_as_blocked(const Node& reader, const std::string& value, const std::set<std::string>& convs,
                      const std::set<std::string>& carriers) {
  if (carriers.count(reader.name)) return true;
  const int r = nee_conv_residual_slot(reader);
  return convs.count(reader.name) &&
         (reader.inputs[0] == value || (r >= 0 && reader.inputs[static_cast<size_t>(r)] == value));
}

// Which channel concatenations, frame gathers, pools and elementwise ops carry the
// blocked layout through: those whose result a blocked reader takes (SqueezeNet's fire
// modules and GoogLeNet's inception blocks concatenate conv outputs that the next convs
// read; a video CNN's convs gather the frames the previous ones wrote; max pools sit
// between such convs and concats; an SE block's Mul between a depthwise and a 1x1 conv),
// found again until no more join, for chains of them.
std::set<std::string> carriers_to_block(const Graph& graph, const std::set<std::string>& convs,
                                        const GraphOptions& options) {
  std::set<std::string> carriers;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Node& node : graph.nodes()) {
      const bool carries = concats_channels(graph, node) || gathers_frames(graph, node) ||
                           normalizes_groups(graph, node) || (options.block_pads && pads_planes(graph, node)) ||
                           (options.block_resizes && resizes_planes(graph, node)) ||
                           (options.block_pools && pools_channels(graph, node)) ||
                           (options.block_elementwise && elementwise_carries(graph, node));
      if (carriers.count(node.name) || !carries) continue;
      for (const Node* reader : graph.consumers(node.outputs[0])) {
        if (reads_as_blocked(*reader, node.outputs[0], convs, carriers)) {
          carriers.insert(node.name);
          grew = true;
          break;
        }
      }
    }
  }
  return carriers;
}

// A global pool that reads its X blocked when X is (with block_elementwise): f32, one
// input, a result that is not a graph output.
bool pools_blocked_input(const Graph& graph, const Node& node, const GraphOptions& options) {
  return options.block_elementwise && is_global_pool(node) && node.inputs.size() == 1 &&
         graph.type_of(node.inputs[0]).dtype == DType::f32 && !graph.is_output(node.outputs[0]);
}

// Whether `reader` heads a chain of Transposes and views with a Transpose in it that
// composes with the copy of blocked `nchw` back to NCHW (layouts_as_transposes): blocked for
// it, a conv's output costs no copy more (compose_transposes makes the two one), and the
// conv writes blocked, where its NCHW epilogue ran ESPCN's 32->48 conv before a
// PixelShuffle at 130 GFLOP/s and no Winograd.
bool composes_with_unblocking(const Graph& graph, const Node& reader, const std::vector<int64_t>& nchw) {
  if (!chains(reader) || reader.inputs[0].empty()) return false;
  const std::vector<const Node*> chain = chain_from(graph, reader);
  if (std::all_of(chain.begin(), chain.end(), [](const Node* n) { return is_view(*n); })) return false;
  FactoredIndex index(blocked_activation_shape(nchw));
  index.transpose({0, 1, 4, 2, 3});
  return index.view(nchw) && follow(graph, chain, index);
}

// Which values to block: the outputs of `convs` and `carriers` that a blocked reader takes,
// with block_global_pool_inputs those of `convs` that only global pools and blocked
// readers read (the pools would read them blocked, and no reader needs a copy), and with
// layouts_as_transposes and compose_transposes those of `convs` that one chain of
// Transposes alone reads, where it composes with the copy back (composes_with_unblocking).
std::set<std::string> values_to_block(const Graph& graph, const std::set<std::string>& convs,
                                      const std::set<std::string>& carriers, const GraphOptions& options) {
  std::set<std::string> blocked;
  for (const Node& node : graph.nodes()) {
    if (!convs.count(node.name) && !carriers.count(node.name)) continue;
    const std::string& y = node.outputs[0];
    if (graph.is_output(y) || !can_block_activations(graph.type_of(y).shape)) continue;
    bool any_blocked = false, all_blocked = true, pooled = false;
    for (const Node* reader : graph.consumers(y)) {
      const bool blocked_reader = reads_as_blocked(*reader, y, convs, carriers);
      const bool pool = pools_blocked_input(graph, *reader, options);
      any_blocked = any_blocked || blocked_reader;
      all_blocked = all_blocked && (blocked_reader || pool);
      pooled = pooled || pool;
    }
    const std::vector<const Node*> readers = graph.consumers(y);
    const bool transposed = options.layouts_as_transposes && options.compose_transposes && convs.count(node.name) &&
                            readers.size() == 1 && composes_with_unblocking(graph, *readers[0], graph.type_of(y).shape);
    if (any_blocked || transposed ||
        (options.block_global_pool_inputs && convs.count(node.name) && pooled && all_blocked)) {
      blocked.insert(y);
    }
  }
  return blocked;
}

// The global pools that read a blocked value (with block_elementwise): their [N, C, 1, 1]
// results are blocked too, which changes no byte.
std::set<std::string> global_pools_to_block(const Graph& graph, const std::set<std::string>& blocked,
                                            const GraphOptions& options) {
  std::set<std::string> pools;
  for (const Node& node : graph.nodes()) {
    if (pools_blocked_input(graph, node, options) && blocked.count(node.inputs[0])) pools.insert(node.name);
  }
  return pools;
}

}  // namespace

void block_activations(Graph& graph, const GraphOptions& options) {
  std::set<std::string> convs;  // names of the NeeConv nodes that read and write blocked
  for (const Node& node : graph.nodes()) {
    if (reads_blocked(graph, node)) convs.insert(node.name);
  }
  // A depthwise conv stays only if its X is blocked; dropping one may unblock the value
  // it read, so this repeats until nothing changes.
  std::set<std::string> carriers = carriers_to_block(graph, convs, options);
  std::set<std::string> blocked = values_to_block(graph, convs, carriers, options);
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (const Node& node : graph.nodes()) {
      if (convs.count(node.name) && is_depthwise(graph, node) && !blocked.count(node.inputs[0])) {
        convs.erase(node.name);
        dropped = true;
      }
    }
    if (dropped) {
      carriers = carriers_to_block(graph, convs, options);
      blocked = values_to_block(graph, convs, carriers, options);
    }
  }
  if (blocked.empty()) return;
  const std::set<std::string> global_pools = global_pools_to_block(graph, blocked, options);
  for (const Node& node : graph.nodes()) {
    if (global_pools.count(node.name)) blocked.insert(node.outputs[0]);
  }
  for (const std::string& y : blocked) {
    graph.set_type(y, TensorType{graph.type_of(y).dtype, blocked_activation_shape(graph.type_of(y).shape)});
  }

  std::vector<Node> conversions;
  const bool transposes = options.layouts_as_transposes;
  for (Node& node : graph.nodes()) {
    if (global_pools.count(node.name)) {
      node.attrs.set("input_block", kActivationBlock);
      continue;
    }
    if (carriers.count(node.name) && node.op == "NeeElementwise") {
      // Operands of the output's shape come blocked; the broadcast ones are viewed so.
      const std::vector<int64_t> nchw = unblocked_activation_shape(graph.type_of(node.outputs[0]).shape);
      for (std::string& in : node.inputs) {
        if (blocked.count(in)) continue;
        const std::vector<int64_t>& shape = graph.type_of(in).shape;
        if (shape == nchw) {
          in = converted(graph, in, "nchw16c", conversions, transposes);
          continue;
        }
        const std::vector<int64_t> view = *blocked_broadcast_shape(shape, nchw);
        const std::string name = in + ".blocked_broadcast";
        if (!graph.has_value(name)) conversions.push_back(reshape_view(graph, in, name, view));
        in = name;
      }
      continue;
    }
    if (carriers.count(node.name)) {
      // Every input comes blocked (a group norm's, a Pad's or a Resize's X only); one that no
      // conv or carrier blocks is converted.
      const bool x_only = node.op == "NeeGroupNorm" || node.op == "Pad" || node.op == "Resize";
      for (size_t i = 0; i < (x_only ? 1 : node.inputs.size()); ++i) {
        std::string& in = node.inputs[i];
        if (!blocked.count(in)) in = converted(graph, in, "nchw16c", conversions, transposes);
      }
      if (node.op == "Pad") {
        // [N, C/16, H, W, 16]: the planes' pads, none for the lanes.
        const std::vector<int64_t> p = node.attrs.get_ints("pads");
        node.attrs.set("pads", std::vector<int64_t>{0, 0, p[2], p[3], 0, 0, 0, p[6], p[7], 0});
        continue;
      }
      if (node.op == "Resize" && node.attrs.has("scales")) {
        std::vector<float> scales = node.attrs.get_floats("scales");
        scales.push_back(1.0f);  // the lanes
        node.attrs.set("scales", scales);
      }
      // A pool's, group norm's or resize's kernel reads the layout from this attribute (a concat's
      // axis 1 is the block axis in either layout).
      if (node.op != "Concat") node.attrs.set("input_block", kActivationBlock);
      continue;
    }
    const bool conv = convs.count(node.name) != 0;
    // The depthwise convs are those whose weights are not blocked yet.
    if (conv && node.attrs.get_int("weight_block", 0) == 0) block_conv_weights(graph, node);
    const bool output_blocked = blocked.count(node.outputs[0]) != 0;
    if (output_blocked) node.attrs.set("output_block", kActivationBlock);
    const int r = conv ? nee_conv_residual_slot(node) : -1;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& in = node.inputs[i];
      const bool is_blocked = blocked.count(in) != 0;
      if (conv && i == 0) {
        if (is_blocked) node.attrs.set("input_block", kActivationBlock);
        continue;  // a conv reads X in either layout
      }
      if (conv && static_cast<int>(i) == r) {
        // The residual comes in the output's layout.
        if (is_blocked != output_blocked) {
          node.inputs[i] = converted(graph, in, output_blocked ? "nchw16c" : "nchw", conversions, transposes);
        }
        continue;
      }
      if (is_blocked) node.inputs[i] = converted(graph, in, "nchw", conversions, transposes);
    }
  }
  for (Node& c : conversions) graph.add_node(std::move(c));
  graph.sort_topologically();
}

}  // namespace nee
