#include "runtime/graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include "core/error.h"

namespace nee {

void Graph::add_value(const std::string& name, const TensorType& type) {
  if (has_value(name)) throw Error(fmt::format("value '{}' is defined twice", name));
  values_[name] = Value{type, std::nullopt};
}

void Graph::add_constant(const std::string& name, const Tensor& data) {
  if (has_value(name)) throw Error(fmt::format("value '{}' is defined twice", name));
  values_[name] = Value{data.type(), data};
}

void Graph::set_type(const std::string& name, const TensorType& type) { values_[name].type = type; }

void Graph::remove_value(const std::string& name) {
  values_.erase(name);
  dequantized_origins_.erase(name);
  quantized_origins_.erase(name);
}

void Graph::set_dequantized_origin(const std::string& name, DequantizedOrigin origin) {
  if (!constant(name)) throw Error(fmt::format("'{}' is not a constant to have a quantized origin", name));
  dequantized_origins_[name] = std::move(origin);
}

const DequantizedOrigin* Graph::dequantized_origin(const std::string& name) const {
  auto it = dequantized_origins_.find(name);
  return it == dequantized_origins_.end() ? nullptr : &it->second;
}

const QuantizedOrigin* Graph::quantized_origin(const std::string& name) const {
  auto it = quantized_origins_.find(name);
  return it == quantized_origins_.end() ? nullptr : &it->second;
}

bool Graph::is_quantized_source(const std::string& name) const {
  return std::any_of(quantized_origins_.begin(), quantized_origins_.end(),
                     [&](const auto& entry) { return entry.second.x == name; });
}

const TensorType& Graph::type_of(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(fmt::format("the graph has no value named '{}'", name));
  return it->second.type;
}

const Tensor* Graph::constant(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !it->second.data) return nullptr;
  return &*it->second.data;
}

std::vector<std::string> Graph::value_names() const {
  std::vector<std::string> names;
  for (const auto& entry : values_) names.push_back(entry.first);
  return names;
}

const Node* Graph::producer(const std::string& value) const {
  for (const Node& node : nodes_) {
    if (std::find(node.outputs.begin(), node.outputs.end(), value) != node.outputs.end()) return &node;
  }
  return nullptr;
}

std::vector<const Node*> Graph::consumers(const std::string& value) const {
  std::vector<const Node*> found;
  for (const Node& node : nodes_) {
    if (std::find(node.inputs.begin(), node.inputs.end(), value) != node.inputs.end()) {
      found.push_back(&node);
    }
  }
  return found;
}

void Graph::replace_uses(const std::string& from, const std::string& to) {
  for (Node& node : nodes_) std::replace(node.inputs.begin(), node.inputs.end(), from, to);
  std::replace(outputs_.begin(), outputs_.end(), from, to);
}

bool Graph::is_output(const std::string& name) const {
  return std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end();
}

std::vector<size_t> Graph::topological_order() const {
  const size_t n = nodes_.size();
  std::unordered_map<std::string, size_t> producer_of;
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& out : nodes_[i].outputs) {
      if (!out.empty()) producer_of[out] = i;
    }
  }
  // Kahn's algorithm; the min-heap on the index keeps an already valid order unchanged.
  std::vector<std::vector<size_t>> predecessors(n), successors(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& in : nodes_[i].inputs) {
      auto it = producer_of.find(in);
      if (in.empty() || it == producer_of.end()) continue;
      predecessors[i].push_back(it->second);
      successors[it->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t s : successors[i]) {
      if (--pending[s] == 0) ready.push(s);
    }
  }
  if (order.size() == n) return order;
  // Every node left over has a left-over predecessor, so walking predecessors n times
  // from any of them ends on a cycle.
  size_t on_cycle = 0;
  while (pending[on_cycle] == 0) ++on_cycle;
  for (size_t step = 0; step < n; ++step) {
    for (size_t p : predecessors[on_cycle]) {
      if (pending[p] != 0) {
        on_cycle = p;
        break;
      }
    }
  }
  const Node& node = nodes_[on_cycle];
  throw Error(fmt::format("the graph has a cycle through node '{}' ({})", node.name, node.op));
}

void Graph::sort_topologically() {
  std::vector<Node> sorted;
  for (size_t i : topological_order()) sorted.push_back(std::move(nodes_[i]));
  nodes_ = std::move(sorted);
}

std::string Graph::summary() const {
  std::string text;
  for (const std::string& in : inputs_) {
    text += fmt::format("input {}: {}\n", in, type_of(in).to_string());
  }
  for (const auto& [name, value] : values_) {
    if (value.data) text += fmt::format("constant {}: {}\n", name, value.type.to_string());
  }
  for (const Node& node : nodes_) {
    std::vector<std::string> outs;
    for (const std::string& out : node.outputs) {
      outs.push_back(has_value(out) ? out + ": " + type_of(out).to_string() : out);
    }
    const std::string attrs = node.attrs.to_string();
    text += fmt::format("{} = {}({}){}  # {}\n", fmt::join(outs, ", "), node.op,
                        fmt::join(node.inputs, ", "), attrs.empty() ? "" : " {" + attrs + "}",
                        node.name);
  }
  for (const std::string& out : outputs_) {
    text += fmt::format("output {}: {}\n", out, type_of(out).to_string());
  }
  return text;
}

}  // namespace nee
