#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// The f32 constant named `value`, or null (also for an omitted input's empty name).
const Tensor* f32_constant(const Graph& graph, const std::string& value);

// The value of an f32 constant of one element (of any rank), or nullopt.
std::optional<float> scalar_f32_constant(const Graph& graph, const std::string& value);

// Whether `value` is a one-element f32 constant within 1e-6 (relative) of `wanted`.
bool is_scalar_near(const Graph& graph, const std::string& value, float wanted);

// Clip's bounds as constants: inputs (opset >= 11) or attributes; an absent bound is
// the float range's end. False when a bound is not a constant scalar or lo > hi.
bool clip_bounds(const Graph& graph, const Node& clip, float& lo, float& hi);

// An inference-mode BatchNormalization as y = scale[c] * x + shift[c], with scale = S /
// sqrt(var + eps) and shift = B - mean * scale from its constant f32 parameters of
// `channels` elements each; nullopt for training mode, a requested mean or variance
// output, or parameters that are not such constants.
struct BatchNormAffine {
  std::vector<float> scale, shift;
};
std::optional<BatchNormAffine> inference_batch_norm(const Graph& graph, const Node& bn, int64_t channels);

// A value name derived from `base` that the graph does not define yet.
std::string unique_value_name(const Graph& graph, const std::string& base);

// Adds `t` as a constant under a name derived from `base` that the graph does not define
// yet, and returns that name.
std::string add_named_constant(Graph& graph, const std::string& base, const Tensor& t);

// Adds `value` as an f32 scalar constant under a name derived from `base`; returns it.
std::string add_scalar_constant(Graph& graph, const std::string& base, float value);

// Element i of an 8-bit integer tensor (i8 or u8: quantized weights, zero points).
int byte_integer_at(const Tensor& t, int64_t i);

// Adds `shape` as the i64 constant `name` (a Reshape's second input) and returns `name`.
std::string add_shape_constant(Graph& graph, const std::string& name, const std::vector<int64_t>& shape);

// A node of `op` reading `inputs` and writing the one value `output`, after which it is
// named.
Node single_output_node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output);

// A node `op`(inputs) appended to `added`, writing a new value of `type` named after `base`
// (the node takes its name); returns that value.
std::string append_node(Graph& graph, std::vector<Node>& added, const std::string& op, const std::string& base,
                        const std::vector<std::string>& inputs, const TensorType& type);

// A Reshape node named `name` viewing `value` as `shape`: adds the value `name` (unless the
// graph has it: a view back to an existing value) and the shape constant, and returns the
// node for the caller to add.
Node reshape_view(Graph& graph, const std::string& value, const std::string& name, const std::vector<int64_t>& shape);

// Removes the value `name` (a constant a rewrite stopped reading; "" for none) where nothing
// reads it and the graph does not output it.
void remove_if_unread(Graph& graph, const std::string& name);

// Erases the node that made `value` where nothing reads its outputs any more, and the makers
// of its inputs in turn; a constant or input `value` goes where nothing reads it.
void drop_unread_makers(Graph& graph, const std::string& value);

// Erases the nodes of these names (what a rewrite replaced), keeping the others' order.
void erase_named_nodes(Graph& graph, const std::vector<std::string>& names);

// Erases the Transposes and Reshapes whose outputs nothing reads and the graph does not
// output (what a lowering left behind when it rewired their readers).
void drop_unread_copies(Graph& graph);

}  // namespace nee
