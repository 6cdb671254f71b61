#include "runtime/deploy/graph_file.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/json_numbers.h"
#include "runtime/tensor_limits.h"

namespace nee {

namespace {

using json = nlohmann::json;

json type_json(const TensorType& t) { return {{"dtype", to_string(t.dtype)}, {"shape", t.shape}}; }

// A value's type; its dims are checked as an imported model's are (none negative, at most
// kMaxTensorBytes in all), so that a hostile description cannot overflow a size.
TensorType type_from(const json& j, const std::string& name) {
  const TensorType type{dtype_from_string(j.at("dtype").get<std::string>()),
                        json_ints(j.at("shape"), "the shape of '" + name + "'")};
  checked_elements(type, "value '" + name + "'");
  return type;
}

// A tensor's place in the weights, or its strings inline.
json tensor_json(const Tensor& t, WeightsFile& weights) {
  json j = type_json(t.type());
  if (t.dtype() == DType::string) {
    std::vector<std::string> strings(t.data_as<std::string>(), t.data_as<std::string>() + t.elements());
    j["strings"] = strings;
    return j;
  }
  j["offset"] = weights.place(t.data(), t.bytes());
  return j;
}

Tensor tensor_from(const json& j, const std::string& name, const std::shared_ptr<uint8_t>& weights,
                   size_t weights_bytes) {
  const TensorType type = type_from(j, name);
  if (type.dtype == DType::string) {
    const auto strings = j.at("strings").get<std::vector<std::string>>();
    if (static_cast<int64_t>(strings.size()) != type.elements()) {
      throw Error(fmt::format("string tensor '{}' holds {} strings for its shape {}", name, strings.size(),
                              type.to_string()));
    }
    Tensor t(type);
    for (size_t i = 0; i < strings.size(); ++i) t.data_as<std::string>()[i] = strings[i];
    return t;
  }
  const int64_t at = json_int(j.at("offset"), "the offset of '" + name + "'");
  const size_t offset = static_cast<size_t>(at);
  const size_t bytes = static_cast<size_t>(type.elements()) * dtype_size(type.dtype);
  if (at < 0 || offset % kWeightAlignment || offset > weights_bytes || bytes > weights_bytes - offset) {
    throw Error(fmt::format("tensor '{}' ({} at offset {}) lies outside the {}-byte weights or off their alignment",
                            name, type.to_string(), offset, weights_bytes));
  }
  return Tensor(type, weights, offset);
}

json attribute_json(const Attributes::Value& v, WeightsFile& weights) {
  return std::visit(
      [&](const auto& value) -> json {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, int64_t>) return {{"int", value}};
        if constexpr (std::is_same_v<T, float>) return {{"float", value}};
        if constexpr (std::is_same_v<T, std::string>) return {{"string", value}};
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) return {{"ints", value}};
        if constexpr (std::is_same_v<T, std::vector<float>>) return {{"floats", value}};
        if constexpr (std::is_same_v<T, Tensor>) return {{"tensor", tensor_json(value, weights)}};
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return {{"strings", value}};
      },
      v);
}

Attributes::Value attribute_from(const json& j, const std::string& name, const std::shared_ptr<uint8_t>& weights,
                                 size_t weights_bytes) {
  if (j.contains("int")) return json_int(j["int"], "attribute '" + name + "'");
  if (j.contains("float")) return json_float(j["float"], "attribute '" + name + "'");
  if (j.contains("string")) return j["string"].get<std::string>();
  if (j.contains("ints")) return json_ints(j["ints"], "attribute '" + name + "'");
  if (j.contains("floats")) return json_floats(j["floats"], "attribute '" + name + "'");
  if (j.contains("tensor")) return tensor_from(j["tensor"], name, weights, weights_bytes);
  if (j.contains("strings")) return j["strings"].get<std::vector<std::string>>();
  throw Error(fmt::format("attribute '{}' is of no known type: {}", name, j.dump().substr(0, 200)));
}

}  // namespace

size_t WeightsFile::place(const void* data, size_t bytes) {
  const std::string_view view(static_cast<const char*>(data), bytes);
  const size_t key = std::hash<std::string_view>()(view);
  const auto [first, last] = offsets_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    if (bytes_.compare(it->second, bytes, view) == 0) return it->second;
  }
  bytes_.resize((bytes_.size() + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment, '\0');
  const size_t offset = bytes_.size();
  bytes_.append(view);
  offsets_.emplace(key, offset);
  return offset;
}

json serialize_graph(const Graph& graph, WeightsFile& weights) {
  json values = json::object(), constants = json::object();
  for (const std::string& name : graph.value_names()) {
    if (const Tensor* data = graph.constant(name)) {
      constants[name] = tensor_json(*data, weights);
    } else {
      values[name] = type_json(graph.type_of(name));
    }
  }
  json nodes = json::array();
  for (const Node& n : graph.nodes()) {
    json attrs = json::object();
    for (const auto& [name, value] : n.attrs.all()) attrs[name] = attribute_json(value, weights);
    nodes.push_back({{"op", n.op}, {"name", n.name}, {"inputs", n.inputs}, {"outputs", n.outputs}, {"attrs", attrs}});
  }
  return {{"inputs", graph.inputs()}, {"outputs", graph.outputs()}, {"values", values}, {"constants", constants},
          {"nodes", nodes}};
}

Graph deserialize_graph(const json& description, std::shared_ptr<uint8_t> weights, size_t weights_bytes) {
  try {
    Graph graph;
    for (const auto& [name, type] : description.at("values").items()) graph.add_value(name, type_from(type, name));
    for (const auto& [name, tensor] : description.at("constants").items()) {
      graph.add_constant(name, tensor_from(tensor, name, weights, weights_bytes));
    }
    for (const json& n : description.at("nodes")) {
      Node node;
      node.op = n.at("op").get<std::string>();
      node.name = n.at("name").get<std::string>();
      node.inputs = n.at("inputs").get<std::vector<std::string>>();
      node.outputs = n.at("outputs").get<std::vector<std::string>>();
      for (const auto& [name, value] : n.at("attrs").items()) {
        node.attrs.set(name, attribute_from(value, node.name + "." + name, weights, weights_bytes));
      }
      for (const auto* names : {&node.inputs, &node.outputs}) {
        for (const std::string& v : *names) {
          if (!v.empty() && !graph.has_value(v)) {
            throw Error(fmt::format("node '{}' names value '{}', which the graph does not declare", node.name, v));
          }
        }
      }
      graph.add_node(std::move(node));
    }
    for (const json& name : description.at("inputs")) graph.add_input(name.get<std::string>());
    for (const json& name : description.at("outputs")) graph.add_output(name.get<std::string>());
    for (const auto* names : {&graph.inputs(), &graph.outputs()}) {
      for (const std::string& v : *names) {
        if (!graph.has_value(v)) throw Error(fmt::format("graph input or output '{}' is not declared", v));
      }
    }
    return graph;
  } catch (const json::exception& e) {
    throw Error(std::string("the graph description is malformed: ") + e.what());
  }
}

}  // namespace nee
