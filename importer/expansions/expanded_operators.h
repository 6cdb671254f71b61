#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// Operators ONNX defines as functions of other operators, which the importer replaces by
// the nodes of their definition before it imports them (importer/expansions/node_expansion.h): the
// passes then fuse what they recognize, and every node keeps a reference kernel. DeformConv,
// not a function in ONNX, expands the same way into a GridSample and a Conv, whose product
// runs on the bundle's conv family.

const std::set<std::string>& expanded_operators();  // AffineGrid, Attention, CenterCropPad...
bool is_expanded_operator(const std::string& op);

// The nodes that compute `node` in a model of default-domain `opset`, whose input types
// `graph` holds; constants they read are added to `graph`. nee::Error naming what the node
// gets wrong. Each operator's expansion below has this signature.
std::vector<Node> expand_operator(Graph& graph, const Node& node, int64_t opset);

// Attention (opsets 23 to 25): scaled dot-product attention over 3-D or 4-D Q, K, V with
// grouped heads, a key-value cache, boolean or additive masks, causal and sliding-window
// masks, per-batch key lengths, a soft cap and the four debug outputs of QK.
std::vector<Node> expand_attention(Graph& graph, const Node& node, int64_t opset);
// RotaryEmbedding (opset 23): rotary position embedding over 3-D or 4-D inputs, halves
// or interleaved pairs, whole or partial heads, caches indexed by position ids or not.
std::vector<Node> expand_rotary_embedding(Graph& graph, const Node& node, int64_t opset);
// SwiGLU (opset 28): Swish(A, alpha) * B over two operands of one shape.
std::vector<Node> expand_swiglu(Graph& graph, const Node& node, int64_t opset);
// GroupNormalization (opsets 18 and 21): scale and bias per group before opset 21, per
// channel from it.
std::vector<Node> expand_group_normalization(Graph& graph, const Node& node, int64_t opset);
// LpNormalization (opset 1; read from opset 7, whose Where the expansion uses): X over its
// L1 or L2 norm along an axis.
std::vector<Node> expand_lp_normalization(Graph& graph, const Node& node, int64_t opset);
// LpPool (read from opset 11): an AveragePool of |X|^p counting the padding, times the
// window's size, to the power 1/p.
std::vector<Node> expand_lp_pool(Graph& graph, const Node& node, int64_t opset);
// GlobalLpPool (read from opset 2): the same over every spatial position.
std::vector<Node> expand_global_lp_pool(Graph& graph, const Node& node, int64_t opset);
// CenterCropPad (opset 18): a Slice around the centre, or a zero Pad around it, per axis.
std::vector<Node> expand_center_crop_pad(Graph& graph, const Node& node, int64_t opset);
// AffineGrid (opset 20): theta times the constant homogeneous coordinates of the grid.
std::vector<Node> expand_affine_grid(Graph& graph, const Node& node, int64_t opset);
// TensorScatter (opset 24): a KV cache's update as a ScatterElements, linear or circular.
std::vector<Node> expand_tensor_scatter(Graph& graph, const Node& node, int64_t opset);
// DeformConv (opsets 19 and 22) over 2-D images: a GridSample of every tap at its
// deformed position, times the mask, then a 1x1 Conv of the samples and the weights.
std::vector<Node> expand_deform_conv(Graph& graph, const Node& node, int64_t opset);
// OptionalHasElement and OptionalGetElement (opset 15, tensors from 18) where the optional
// is a plain tensor or absent: a constant, and the tensor itself.
std::vector<Node> expand_optional_has_element(Graph& graph, const Node& node, int64_t opset);
std::vector<Node> expand_optional_get_element(Graph& graph, const Node& node, int64_t opset);
// CausalConvWithState (opset 27): a carried causal depthwise Conv, optionally with SiLU.
std::vector<Node> expand_causal_conv_with_state(Graph& graph, const Node& node, int64_t opset);

}  // namespace nee
