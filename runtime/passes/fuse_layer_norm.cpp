#include <cmath>

#include "runtime/passes/passes.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// The single element of an f32 constant, when `value` is one.
std::optional<float> scalar_constant(const Graph& graph, const std::string& value) {
  const Tensor* t = graph.constant(value);
  if (!t || t->dtype() != DType::f32 || t->elements() != 1) return std::nullopt;
  return *t->data_as<float>();
}

// The other input of a two-input node that reads `value` once.
std::optional<std::string> other_input_read_once(const Node& node, const std::string& value) {
  if (node.inputs.size() != 2 || node.inputs[0] == node.inputs[1]) return std::nullopt;
  if (node.inputs[0] == value) return node.inputs[1];
  if (node.inputs[1] == value) return node.inputs[0];
  return std::nullopt;
}

// The node that solely consumes `value`, when it has op type `op`.
const Node* sole(const Graph& graph, const std::string& value, const std::string& op) {
  const std::optional<size_t> i = sole_consumer(graph, value);
  if (!i || graph.nodes()[*i].op != op) return nullptr;
  return &graph.nodes()[*i];
}

// ReduceMean over the trailing dims from some axis, keeping them: that axis, or -1.
int64_t trailing_mean_axis(const Graph& graph, const Node& node) {
  if (node.op != "ReduceMean" || node.inputs.size() != 1 || node.attrs.get_int("keepdims", 1) != 1) return -1;
  const std::vector<int64_t> axes = node.attrs.get_ints("axes", {});
  const int64_t rank = static_cast<int64_t>(graph.type_of(node.inputs[0]).shape.size());
  if (axes.empty()) return -1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) return -1;
  }
  return axes.front();
}

// The chain torch.nn.LayerNorm exports to before opset 17, starting at its first
// ReduceMean: the fused node's inputs, attributes and output, plus every node to drop.
struct LayerNormChain {
  Node fused;
  std::vector<const Node*> members;
};

std::optional<LayerNormChain> match_chain(const Graph& graph, const Node& mean) {
  const int64_t axis = trailing_mean_axis(graph, mean);
  if (axis < 0) return std::nullopt;
  const std::string& x = mean.inputs[0];
  const TensorType& x_type = graph.type_of(x);
  if (x_type.dtype != DType::f32) return std::nullopt;
  const Node* sub = sole(graph, mean.outputs[0], "Sub");
  if (!sub || sub->inputs.size() != 2 || sub->inputs[0] != x || sub->inputs[1] != mean.outputs[0]) {
    return std::nullopt;
  }
  // The centered values feed the Pow (variance) and the Div (normalization), nothing else.
  const std::string& centered = sub->outputs[0];
  if (graph.is_output(centered)) return std::nullopt;
  const std::vector<const Node*> users = graph.consumers(centered);
  if (users.size() != 2) return std::nullopt;
  const Node* pow = users[0]->op == "Pow" ? users[0] : users[1];
  const Node* div = users[0]->op == "Pow" ? users[1] : users[0];
  if (pow->op != "Pow" || div->op != "Div" || pow->inputs.size() != 2 || pow->inputs[0] != centered ||
      scalar_constant(graph, pow->inputs[1]) != 2.0f || div->inputs.size() != 2 || div->inputs[0] != centered) {
    return std::nullopt;
  }
  const Node* var = sole(graph, pow->outputs[0], "ReduceMean");
  if (!var || trailing_mean_axis(graph, *var) != axis) return std::nullopt;
  const Node* add_eps = sole(graph, var->outputs[0], "Add");
  if (!add_eps) return std::nullopt;
  const std::optional<std::string> eps_name = other_input_read_once(*add_eps, var->outputs[0]);
  const std::optional<float> epsilon = eps_name ? scalar_constant(graph, *eps_name) : std::nullopt;
  if (!epsilon || !(*epsilon >= 0)) return std::nullopt;
  const Node* sqrt = sole(graph, add_eps->outputs[0], "Sqrt");
  if (!sqrt || sole(graph, sqrt->outputs[0], "Div") != div || div->inputs[1] != sqrt->outputs[0]) return std::nullopt;

  LayerNormChain chain;
  chain.members = {&mean, sub, pow, var, add_eps, sqrt, div};
  // Scale and bias: a Mul and then an Add of tensors that broadcast to X without growing it.
  std::string last = div->outputs[0], scale, bias;
  const auto keeps_shape = [&](const Node* n) { return n && graph.type_of(n->outputs[0]) == x_type; };
  if (const Node* mul = sole(graph, last, "Mul"); keeps_shape(mul) && other_input_read_once(*mul, last)) {
    scale = *other_input_read_once(*mul, last);
    chain.members.push_back(mul);
    last = mul->outputs[0];
    if (const Node* add = sole(graph, last, "Add"); keeps_shape(add) && other_input_read_once(*add, last)) {
      bias = *other_input_read_once(*add, last);
      chain.members.push_back(add);
      last = add->outputs[0];
    }
  }
  chain.fused.op = "NeeLayerNorm";
  chain.fused.name = mean.name + "_layer_norm";
  chain.fused.inputs = {x, scale};
  if (!bias.empty()) chain.fused.inputs.push_back(bias);
  chain.fused.outputs = {last};
  chain.fused.attrs.set("axis", axis);
  chain.fused.attrs.set("epsilon", *epsilon);
  return chain;
}

// The chain an RMSNorm exports to (LLaMA's, T5's: x * torch.rsqrt(x.pow(2).mean(-1,
// keepdim=True) + eps) * weight), from its ReduceMean: Pow(X, 2) or Mul(X, X), ReduceMean
// over trailing axes, Add epsilon, Sqrt, then Div(X, .), or Div(1, .) or Reciprocal and a
// Mul by X; then optionally a Mul by a scale that broadcasts to the row.
std::optional<LayerNormChain> match_rms_chain(const Graph& graph, const Node& mean) {
  const int64_t axis = trailing_mean_axis(graph, mean);
  if (axis < 0) return std::nullopt;
  const Node* square = graph.producer(mean.inputs[0]);
  if (!square || sole(graph, square->outputs[0], "ReduceMean") != &mean || square->inputs.size() != 2) {
    return std::nullopt;
  }
  const std::string& x = square->inputs[0];
  const bool squares = square->op == "Pow" ? scalar_constant(graph, square->inputs[1]) == 2.0f
                                           : square->op == "Mul" && square->inputs[1] == x;
  const TensorType& x_type = graph.type_of(x);
  if (!squares || x_type.dtype != DType::f32) return std::nullopt;
  const Node* add_eps = sole(graph, mean.outputs[0], "Add");
  if (!add_eps) return std::nullopt;
  const std::optional<std::string> eps_name = other_input_read_once(*add_eps, mean.outputs[0]);
  const std::optional<float> epsilon = eps_name ? scalar_constant(graph, *eps_name) : std::nullopt;
  if (!epsilon || !(*epsilon >= 0)) return std::nullopt;
  const Node* sqrt = sole(graph, add_eps->outputs[0], "Sqrt");
  if (!sqrt) return std::nullopt;

  LayerNormChain chain;
  chain.members = {square, &mean, add_eps, sqrt};
  std::string last;
  if (const Node* div = sole(graph, sqrt->outputs[0], "Div"); div && div->inputs[1] == sqrt->outputs[0]) {
    chain.members.push_back(div);
    if (div->inputs[0] == x) {
      last = div->outputs[0];
    } else if (scalar_constant(graph, div->inputs[0]) == 1.0f) {
      last = div->outputs[0];  // 1 / rms, multiplied by X below
    } else {
      return std::nullopt;
    }
  } else if (const Node* reciprocal = sole(graph, sqrt->outputs[0], "Reciprocal")) {
    chain.members.push_back(reciprocal);
    last = reciprocal->outputs[0];
  } else {
    return std::nullopt;
  }
  if (chain.members.back()->op == "Reciprocal" || chain.members.back()->inputs[0] != x) {
    const Node* normalize = sole(graph, last, "Mul");
    if (!normalize || other_input_read_once(*normalize, last) != x) return std::nullopt;
    chain.members.push_back(normalize);
    last = normalize->outputs[0];
  }
  if (!(graph.type_of(last) == x_type)) return std::nullopt;
  const std::vector<int64_t> row(x_type.shape.begin() + axis, x_type.shape.end());
  std::string scale;
  if (const Node* mul = sole(graph, last, "Mul"); mul && graph.type_of(mul->outputs[0]) == x_type) {
    const std::optional<std::string> weight = other_input_read_once(*mul, last);
    const std::vector<int64_t>& shape = weight ? graph.type_of(*weight).shape : std::vector<int64_t>{};
    bool per_row_element = weight && graph.type_of(*weight).dtype == DType::f32 && shape.size() <= row.size();
    for (size_t d = 0; per_row_element && d < shape.size(); ++d) {
      const int64_t extent = shape[shape.size() - 1 - d];
      per_row_element = extent == 1 || extent == row[row.size() - 1 - d];
    }
    if (per_row_element) {
      scale = *weight;
      chain.members.push_back(mul);
      last = mul->outputs[0];
    }
  }
  chain.fused.op = "NeeLayerNorm";
  chain.fused.name = mean.name + "_rms_norm";
  chain.fused.inputs = {x, scale};
  chain.fused.outputs = {last};
  chain.fused.attrs.set("axis", axis);
  chain.fused.attrs.set("epsilon", *epsilon);
  chain.fused.attrs.set("rms", int64_t{1});
  return chain;
}

}  // namespace

void fuse_layer_norm(Graph& graph, bool rms_norms) {
  for (Node& node : graph.nodes()) {
    const bool only_y = node.outputs.size() == 1 || (node.outputs.size() > 1 && node.outputs[1].empty() &&
                                                     (node.outputs.size() < 3 || node.outputs[2].empty()));
    if (node.op != "LayerNormalization" || !only_y) continue;
    node.op = "NeeLayerNorm";
    node.outputs.resize(1);
    node.attrs.erase("stash_type");
  }
  // RMSNormalization (opset 23), its attributes as the importer stores them.
  for (Node& node : graph.nodes()) {
    if (node.op != "RMSNormalization" || !rms_norms) continue;
    node.op = "NeeLayerNorm";
    node.attrs.set("rms", int64_t{1});
  }

  auto& nodes = graph.nodes();
  std::vector<bool> dropped(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (dropped[i] || nodes[i].op != "ReduceMean") continue;
    std::optional<LayerNormChain> chain = match_chain(graph, nodes[i]);
    if (!chain && rms_norms) chain = match_rms_chain(graph, nodes[i]);
    if (!chain) continue;
    // Without a Mul the scale is a constant 1 (torch's elementwise_affine=False).
    if (chain->fused.inputs[1].empty()) {
      std::string ones = chain->fused.name + "_scale";
      for (int k = 1; graph.has_value(ones); ++k) ones = chain->fused.name + "_scale_" + std::to_string(k);
      Tensor one(DType::f32, {1});
      *one.data_as<float>() = 1.0f;
      graph.add_constant(ones, one);
      chain->fused.inputs[1] = ones;
    }
    fuse_chain(graph, dropped, chain->members, std::move(chain->fused));
  }
  erase_fused(graph, dropped);
}

}  // namespace nee
