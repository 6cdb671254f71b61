#include "runtime/passes/constant_operands.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace nee {

const Tensor* f32_constant(const Graph& graph, const std::string& value) {
  if (value.empty()) return nullptr;
  const Tensor* t = graph.constant(value);
  return t && t->dtype() == DType::f32 ? t : nullptr;
}

std::optional<float> scalar_f32_constant(const Graph& graph, const std::string& value) {
  const Tensor* t = f32_constant(graph, value);
  if (!t || t->elements() != 1) return std::nullopt;
  return *t->data_as<float>();
}

bool is_scalar_near(const Graph& graph, const std::string& value, float wanted) {
  const std::optional<float> v = scalar_f32_constant(graph, value);
  return v && std::fabs(*v - wanted) <= 1e-6f * std::fabs(wanted);
}

bool clip_bounds(const Graph& graph, const Node& clip, float& lo, float& hi) {
  lo = clip.attrs.get_float("min", -FLT_MAX);
  hi = clip.attrs.get_float("max", FLT_MAX);
  for (size_t i = 1; i < clip.inputs.size() && i < 3; ++i) {
    if (clip.inputs[i].empty()) continue;
    const std::optional<float> v = scalar_f32_constant(graph, clip.inputs[i]);
    if (!v) return false;
    (i == 1 ? lo : hi) = *v;
  }
  return lo <= hi;
}

std::string add_scalar_constant(Graph& graph, const std::string& base, float value) {
  Tensor t(DType::f32, {});
  t.data_as<float>()[0] = value;
  return add_named_constant(graph, base, t);
}

int byte_integer_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::i8 ? t.data_as<int8_t>()[i] : t.data_as<uint8_t>()[i];
}

std::string add_shape_constant(Graph& graph, const std::string& name, const std::vector<int64_t>& shape) {
  Tensor tensor(DType::i64, {static_cast<int64_t>(shape.size())});
  std::copy(shape.begin(), shape.end(), tensor.data_as<int64_t>());
  graph.add_constant(name, tensor);
  return name;
}

std::string unique_value_name(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.has_value(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

std::string add_named_constant(Graph& graph, const std::string& base, const Tensor& t) {
  const std::string name = unique_value_name(graph, base);
  graph.add_constant(name, t);
  return name;
}

void erase_named_nodes(Graph& graph, const std::vector<std::string>& names) {
  auto& nodes = graph.nodes();
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                             [&](const Node& n) { return std::find(names.begin(), names.end(), n.name) != names.end(); }),
              nodes.end());
}

void remove_if_unread(Graph& graph, const std::string& name) {
  if (!name.empty() && graph.has_value(name) && graph.consumers(name).empty() && !graph.is_output(name)) {
    graph.remove_value(name);
  }
}

void drop_unread_makers(Graph& graph, const std::string& value) {
  if (!graph.producer(value)) {
    remove_if_unread(graph, value);
    return;
  }
  std::vector<std::string> pending = {value};
  while (!pending.empty()) {
    const std::string v = pending.back();
    pending.pop_back();
    const Node* maker = graph.producer(v);
    if (!maker || graph.is_output(v)) continue;
    bool unread = true;
    for (const std::string& out : maker->outputs) {
      unread = unread && (out.empty() || (graph.consumers(out).empty() && !graph.is_output(out)));
    }
    if (!unread) continue;
    const Node erased = *maker;
    erase_named_nodes(graph, {erased.name});
    for (const std::string& out : erased.outputs) {
      if (!out.empty()) graph.remove_value(out);
    }
    for (const std::string& in : erased.inputs) {
      if (in.empty()) continue;
      if (graph.producer(in)) {
        pending.push_back(in);
      } else {
        remove_if_unread(graph, in);
      }
    }
  }
}

Node single_output_node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
  Node node;
  node.op = op;
  node.name = output;
  node.inputs = inputs;
  node.outputs = {output};
  return node;
}

std::string append_node(Graph& graph, std::vector<Node>& added, const std::string& op, const std::string& base,
                        const std::vector<std::string>& inputs, const TensorType& type) {
  const std::string name = unique_value_name(graph, base);
  graph.add_value(name, type);
  added.push_back(single_output_node(op, inputs, name));
  return name;
}

Node reshape_view(Graph& graph, const std::string& value, const std::string& name, const std::vector<int64_t>& shape) {
  if (!graph.has_value(name)) graph.add_value(name, TensorType{graph.type_of(value).dtype, shape});
  return single_output_node("Reshape", {value, add_shape_constant(graph, name + ".shape", shape)}, name);
}

std::optional<BatchNormAffine> inference_batch_norm(const Graph& graph, const Node& bn, int64_t channels) {
  if (bn.op != "BatchNormalization" || bn.inputs.size() != 5 || bn.attrs.get_int("training_mode", 0) != 0) {
    return std::nullopt;
  }
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (!bn.outputs[i].empty()) return std::nullopt;
  }
  const Tensor* params[4];
  for (int i = 0; i < 4; ++i) {
    params[i] = f32_constant(graph, bn.inputs[1 + i]);
    if (!params[i] || params[i]->elements() != channels) return std::nullopt;
  }
  const float epsilon = bn.attrs.get_float("epsilon", 1e-5f);
  BatchNormAffine affine;
  for (int64_t c = 0; c < channels; ++c) {
    const float scale = params[0]->data_as<float>()[c] / std::sqrt(params[3]->data_as<float>()[c] + epsilon);
    affine.scale.push_back(scale);
    affine.shift.push_back(params[1]->data_as<float>()[c] - params[2]->data_as<float>()[c] * scale);
  }
  return affine;
}

void drop_unread_copies(Graph& graph) {
  auto& nodes = graph.nodes();
  for (size_t i = nodes.size(); i-- > 0;) {
    const std::string& out = nodes[i].outputs[0];
    if ((nodes[i].op == "Transpose" || nodes[i].op == "Reshape") && graph.consumers(out).empty() &&
        !graph.is_output(out)) {
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

}  // namespace nee
