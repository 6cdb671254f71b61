#include "importer/control_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/error.h"
#include "importer/onnx_attributes.h"
#include "importer/onnx_constants.h"
#include "importer/opset_nodes.h"
#include "importer/value_needed.h"
#include "runtime/onnx_tensor.h"

namespace nee {

namespace {

// Iterations one Loop may be inlined for. Each is a copy of the body in the graph, so
// this bounds a loop whose condition never turns false, not any loop a model runs at
// inference (an exported torch.arange, greedy decoding of a few hundred tokens).
constexpr int64_t kMaxLoopIterations = 10000;

// The names a subgraph reads from outside itself (and its own subgraphs read).
std::set<std::string> outer_reads(const onnx::GraphProto& g) {
  std::set<std::string> defined, reads;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const std::string& out : n.output()) defined.insert(out);
  }
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) reads.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH) {
        for (const std::string& r : outer_reads(a.g())) reads.insert(r);
      }
    }
  }
  std::set<std::string> outer;
  for (const std::string& r : reads) {
    if (!r.empty() && !defined.count(r)) outer.insert(r);
  }
  return outer;
}

std::string renamed(const std::map<std::string, std::string>& renames, const std::string& name) {
  auto it = renames.find(name);
  return it == renames.end() ? name : it->second;
}

Tensor scalar_i64(int64_t value) {
  Tensor t(DType::i64, {});
  *t.data_as<int64_t>() = value;
  return t;
}

// `value` as the constant `name`, unless a stage before this one computed it already.
void add_constant_once(Graph& graph, const std::string& name, const Tensor& value) {
  if (!graph.has_value(name)) graph.add_constant(name, value);
}

// The constant at `name` as one integer or boolean, or ValueNeeded naming `role`.
int64_t known_scalar(const Graph& graph, const std::string& name, const std::string& role) {
  const Tensor* t = graph.constant(name);
  if (!t) {
    throw ValueNeeded(fmt::format("its {} ('{}') is computed from the model's data; NEE specializes the rest of the "
                                  "model on its value, so run it in stages (nee-run does)",
                                  role, name),
                      name);
  }
  if (t->elements() != 1) throw Error(fmt::format("{} '{}' must hold one value, got {}", role, name, t->type().to_string()));
  switch (t->dtype()) {
    case DType::boolean: return *static_cast<const uint8_t*>(t->data()) != 0;
    case DType::i64: return *t->data_as<int64_t>();
    case DType::i32: return *t->data_as<int32_t>();
    default: throw Error(fmt::format("{} '{}' has type {}", role, name, t->type().to_string()));
  }
}

// Nodes that stack `slices` along a new axis `axis` into `output`: an Unsqueeze of
// each (its axes an input from opset 13, an attribute before) and a Concat.
std::vector<Node> stack_slices(Graph& graph, const std::vector<std::string>& slices, int64_t axis,
                               const std::string& output, const std::string& prefix, int64_t opset) {
  std::vector<Node> nodes;
  std::vector<std::string> unsqueezed;
  for (size_t i = 0; i < slices.size(); ++i) {
    const std::string out = slices.size() == 1 ? output : fmt::format("{}unsqueezed{}", prefix, i);
    nodes.push_back(axes_node(graph, "Unsqueeze", fmt::format("{}unsqueeze{}", prefix, i), slices[i], out, axis, opset));
    unsqueezed.push_back(out);
  }
  if (slices.size() > 1) {
    Node concat{"Concat", prefix + "concat", unsqueezed, {output}, {}};
    concat.attrs.set("axis", axis);
    nodes.push_back(std::move(concat));
  }
  return nodes;
}

}  // namespace

const std::set<std::string>& ControlFlow::operators() {
  static const std::set<std::string> ops = {"If", "Loop", "Scan"};
  return ops;
}

Node ControlFlow::make_node(const onnx::NodeProto& proto, const std::string& name,
                            const std::map<std::string, std::string>& renames) {
  const std::string what = fmt::format("node '{}' ({})", name, proto.op_type());
  Node node;
  node.op = proto.op_type();
  node.name = name;
  for (const std::string& in : proto.input()) node.inputs.push_back(in.empty() ? in : renamed(renames, in));
  for (const std::string& out : proto.output()) node.outputs.push_back(out.empty() ? out : renamed(renames, out));
  onnx::NodeProto plain;
  Record record;
  record.own_inputs = node.inputs.size();
  record.base = name;
  std::set<std::string> outer;
  for (const onnx::AttributeProto& a : proto.attribute()) {
    if (a.type() != onnx::AttributeProto::GRAPH) {
      *plain.add_attribute() = a;
      continue;
    }
    if (!handles(node.op)) {
      throw Error(fmt::format("attribute '{}' of {} is a graph, which NEE reads for If, Loop and Scan only",
                              a.name(), what));
    }
    record.bodies[a.name()] = Scope{&a.g(), renames};
    for (const std::string& r : outer_reads(a.g())) outer.insert(renamed(renames, r));
  }
  node.attrs = attributes_from_onnx(plain, what);
  if (handles(node.op)) {
    for (const std::string& r : outer) node.inputs.push_back(r);
    records_[name] = std::move(record);
  }
  return node;
}

ControlFlow::Inlined ControlFlow::inline_body(Graph& graph, const Scope& scope, const std::string& prefix,
                                              const std::vector<std::string>& bindings) {
  const onnx::GraphProto& g = *scope.graph;
  if (static_cast<size_t>(g.input_size()) != bindings.size()) {
    throw Error(fmt::format("its subgraph '{}' has {} inputs, expected {}", g.name(), g.input_size(), bindings.size()));
  }
  std::map<std::string, std::string> renames = scope.renames;
  for (int i = 0; i < g.input_size(); ++i) renames[g.input(i).name()] = bindings[i];
  for (const onnx::TensorProto& init : g.initializer()) {
    renames[init.name()] = prefix + init.name();
    if (!graph.has_value(prefix + init.name())) {
      const std::string what = fmt::format("initializer '{}' of subgraph '{}'", init.name(), g.name());
      weights_.reserve(checked_bytes(tensor_proto_type(init, what), what, max_tensor_bytes_), what);
      graph.add_constant(prefix + init.name(), load_tensor(init, folder_, what, max_tensor_bytes_));
    }
  }
  for (const onnx::NodeProto& n : g.node()) {
    for (const std::string& out : n.output()) {
      if (!out.empty()) renames[out] = prefix + out;
    }
  }
  Inlined inlined;
  std::set<std::string> names;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    std::string name = prefix + (n.name().empty() ? fmt::format("{}_{}", n.op_type(), i) : n.name());
    if (!names.insert(name).second) name = fmt::format("{}_{}", name, i);
    if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx")) {
      if (n.output_size() != 1) throw Error(fmt::format("node '{}' (Constant) must have one output", name));
      if (!graph.has_value(renames.at(n.output(0)))) {
        graph.add_constant(renames.at(n.output(0)),
                           constant_node_value(n, folder_, fmt::format("node '{}' (Constant)", name), weights_,
                                               max_tensor_bytes_));
      }
      continue;
    }
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      throw Error(fmt::format("unsupported operator '{}' from domain '{}' at node '{}'", n.op_type(), n.domain(), name));
    }
    inlined.nodes.push_back(make_node(n, name, renames));
  }
  for (const onnx::ValueInfoProto& out : g.output()) inlined.outputs.push_back(renamed(renames, out.name()));
  return inlined;
}

std::vector<Node> ControlFlow::expand(Graph& graph, const Node& node, int64_t opset) {
  auto it = records_.find(node.name);
  if (it == records_.end()) throw Error("it was not read from the model");  // made by make_node only
  const Record record = it->second;
  if (node.op == "If") return expand_if(graph, node, record);
  if (node.op == "Loop") return expand_loop(graph, node, record, opset);
  return expand_scan(graph, node, record, opset);
}

std::vector<Node> ControlFlow::expand_if(Graph& graph, const Node& node, const Record& record) {
  if (record.own_inputs != 1) throw Error(fmt::format("If takes 1 input, got {}", record.own_inputs));
  const bool cond = known_scalar(graph, node.inputs[0], "condition") != 0;
  const char* branch = cond ? "then_branch" : "else_branch";
  auto body = record.bodies.find(branch);
  if (body == record.bodies.end()) throw Error(fmt::format("attribute '{}' is missing", branch));
  const std::string prefix = fmt::format("{}/{}/", record.base, cond ? "then" : "else");
  Inlined inlined = inline_body(graph, body->second, prefix, {});
  if (inlined.outputs.size() != node.outputs.size()) {
    throw Error(fmt::format("its {} has {} outputs, the node {}", branch, inlined.outputs.size(), node.outputs.size()));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    inlined.nodes.push_back(Node{"Identity", fmt::format("{}output{}", prefix, i), {inlined.outputs[i]},
                                 {node.outputs[i]}, {}});
  }
  return inlined.nodes;
}

std::vector<Node> ControlFlow::expand_loop(Graph& graph, const Node& node, const Record& record, int64_t opset) {
  if (record.own_inputs < 2) throw Error(fmt::format("Loop takes at least 2 inputs, got {}", record.own_inputs));
  auto body = record.bodies.find("body");
  if (body == record.bodies.end()) throw Error("attribute 'body' is missing");
  const size_t carried = record.own_inputs - 2;
  if (node.outputs.size() < carried) {
    throw Error(fmt::format("Loop has {} loop-carried inputs but {} outputs", carried, node.outputs.size()));
  }
  const size_t scans = node.outputs.size() - carried;
  // ONNX: the body returns the condition, the carried values, then the scan outputs.
  // Checked before any is read (fuzzing found a body with fewer outputs read past them).
  const int body_outputs = body->second.graph->output_size();
  if (static_cast<size_t>(body_outputs) != 1 + carried + scans) {
    throw Error(fmt::format("Loop's body has {} outputs; with {} carried value(s) and {} scan output(s) it needs {}",
                            body_outputs, carried, scans, 1 + carried + scans));
  }
  const std::string& trip_name = node.inputs[0];
  const std::string& cond_name = node.inputs[1];
  const int64_t k = record.iteration;
  const bool go_on = (trip_name.empty() || k < known_scalar(graph, trip_name, "trip count")) &&
                     (cond_name.empty() || known_scalar(graph, cond_name, "condition") != 0);
  std::vector<Node> nodes;
  if (!go_on) {
    for (size_t j = 0; j < carried; ++j) {
      if (node.outputs[j].empty()) continue;
      nodes.push_back(Node{"Identity", fmt::format("{}/final{}", record.base, j), {node.inputs[2 + j]},
                           {node.outputs[j]}, {}});
    }
    for (size_t j = 0; j < scans; ++j) {
      const std::string& out = node.outputs[carried + j];
      if (out.empty()) continue;
      if (k == 0) {
        // No iteration ran: the scan output is empty, shaped as the body declares it.
        const auto& declared = body->second.graph->output(static_cast<int>(1 + carried + j)).type().tensor_type();
        std::vector<int64_t> shape{0};
        for (const auto& d : declared.shape().dim()) {
          if (!d.has_dim_value()) {
            throw Error(fmt::format("it runs no iteration, and the body does not declare the shape of scan output {}",
                                    j));
          }
          shape.push_back(d.dim_value());
        }
        add_constant_once(graph, out, Tensor(TensorType{dtype_from_onnx(declared.elem_type(), out), shape}));
        continue;
      }
      const std::vector<Node> stacked =
          stack_slices(graph, record.scan_slices.at(j), 0, out, fmt::format("{}/scan{}/", record.base, j), opset);
      nodes.insert(nodes.end(), stacked.begin(), stacked.end());
    }
    return nodes;
  }
  if (k >= kMaxLoopIterations) {
    throw Error(fmt::format("it ran {} iterations, the most NEE inlines; is its condition ever false?",
                            kMaxLoopIterations));
  }
  const std::string prefix = fmt::format("{}/{}/", record.base, k);
  std::vector<std::string> bindings{prefix + "iteration_num", cond_name.empty() ? prefix + "cond_in" : cond_name};
  add_constant_once(graph, bindings[0], scalar_i64(k));
  if (cond_name.empty()) {
    Tensor yes(DType::boolean, {});
    *static_cast<uint8_t*>(yes.data()) = 1;
    add_constant_once(graph, bindings[1], yes);
  }
  for (size_t j = 0; j < carried; ++j) bindings.push_back(node.inputs[2 + j]);
  Inlined inlined = inline_body(graph, body->second, prefix, bindings);
  if (inlined.outputs.size() != 1 + carried + scans) {
    throw Error(fmt::format("its body has {} outputs, expected {} (condition, {} loop-carried, {} scan)",
                            inlined.outputs.size(), 1 + carried + scans, carried, scans));
  }
  // The rest of the loop: a Loop node that starts at iteration k + 1 from this one's results.
  Node rest = node;
  rest.name = fmt::format("{}@{}", record.base, k + 1);
  rest.inputs[1] = inlined.outputs[0];
  for (size_t j = 0; j < carried; ++j) rest.inputs[2 + j] = inlined.outputs[1 + j];
  Record next = record;
  next.iteration = k + 1;
  next.scan_slices.resize(scans);
  for (size_t j = 0; j < scans; ++j) next.scan_slices[j].push_back(inlined.outputs[1 + carried + j]);
  records_[rest.name] = std::move(next);
  nodes = std::move(inlined.nodes);
  nodes.push_back(std::move(rest));
  return nodes;
}

std::vector<Node> ControlFlow::expand_scan(Graph& graph, const Node& node, const Record& record, int64_t opset) {
  if (opset < 9) throw Error("Scan of opset 8 (with a batch axis and sequence_lens) is not supported; opset 9's is");
  auto body = record.bodies.find("body");
  if (body == record.bodies.end()) throw Error("attribute 'body' is missing");
  const int64_t scan_inputs = node.attrs.get_int("num_scan_inputs");
  if (scan_inputs < 1 || static_cast<size_t>(scan_inputs) > record.own_inputs) {
    throw Error(fmt::format("num_scan_inputs {} does not fit its {} inputs", scan_inputs, record.own_inputs));
  }
  const size_t states = record.own_inputs - static_cast<size_t>(scan_inputs);
  if (node.outputs.size() < states) throw Error("it has fewer outputs than states");
  const size_t scan_outputs = node.outputs.size() - states;
  const auto list = [&](const char* attr, size_t n) {
    std::vector<int64_t> v = node.attrs.get_ints(attr, std::vector<int64_t>(n, 0));
    if (v.size() != n) throw Error(fmt::format("attribute '{}' has {} entries, expected {}", attr, v.size(), n));
    return v;
  };
  std::vector<int64_t> in_axes = list("scan_input_axes", scan_inputs);
  const std::vector<int64_t> in_dirs = list("scan_input_directions", scan_inputs);
  const std::vector<int64_t> out_axes = list("scan_output_axes", scan_outputs);
  const std::vector<int64_t> out_dirs = list("scan_output_directions", scan_outputs);
  int64_t length = -1;
  for (size_t j = 0; j < in_axes.size(); ++j) {
    const TensorType& type = graph.type_of(node.inputs[states + j]);
    const auto rank = static_cast<int64_t>(type.shape.size());
    if (in_axes[j] < -rank || in_axes[j] >= rank) throw Error(fmt::format("scan_input_axes[{}] is out of range", j));
    if (in_axes[j] < 0) in_axes[j] += rank;
    const int64_t n = type.shape[static_cast<size_t>(in_axes[j])];
    if (length >= 0 && n != length) throw Error(fmt::format("its scan inputs have lengths {} and {}", length, n));
    length = n;
  }
  if (length < 1) throw Error("its scan inputs are empty");
  if (length > kMaxLoopIterations) {
    throw Error(fmt::format("it scans {} slices, more than the {} NEE inlines", length, kMaxLoopIterations));
  }
  std::vector<Node> nodes;
  std::vector<std::string> state(node.inputs.begin(), node.inputs.begin() + static_cast<std::ptrdiff_t>(states));
  std::vector<std::vector<std::string>> slices(scan_outputs);
  for (int64_t t = 0; t < length; ++t) {
    const std::string prefix = fmt::format("{}/{}/", record.base, t);
    std::vector<std::string> bindings = state;
    for (size_t j = 0; j < in_axes.size(); ++j) {
      const std::string index = fmt::format("{}index{}", prefix, j), slice = fmt::format("{}slice{}", prefix, j);
      add_constant_once(graph, index, scalar_i64(in_dirs[j] ? length - 1 - t : t));
      Node gather{"Gather", prefix + "gather" + std::to_string(j), {node.inputs[states + j], index}, {slice}, {}};
      gather.attrs.set("axis", in_axes[j]);
      nodes.push_back(std::move(gather));
      bindings.push_back(slice);
    }
    Inlined inlined = inline_body(graph, body->second, prefix, bindings);
    if (inlined.outputs.size() != states + scan_outputs) {
      throw Error(fmt::format("its body has {} outputs, expected {}", inlined.outputs.size(), states + scan_outputs));
    }
    nodes.insert(nodes.end(), inlined.nodes.begin(), inlined.nodes.end());
    state.assign(inlined.outputs.begin(), inlined.outputs.begin() + static_cast<std::ptrdiff_t>(states));
    for (size_t j = 0; j < scan_outputs; ++j) slices[j].push_back(inlined.outputs[states + j]);
  }
  for (size_t j = 0; j < states; ++j) {
    if (node.outputs[j].empty()) continue;
    nodes.push_back(Node{"Identity", fmt::format("{}/final{}", record.base, j), {state[j]}, {node.outputs[j]}, {}});
  }
  for (size_t j = 0; j < scan_outputs; ++j) {
    const std::string& out = node.outputs[states + j];
    if (out.empty()) continue;
    if (out_dirs[j]) std::reverse(slices[j].begin(), slices[j].end());
    const std::vector<Node> stacked =
        stack_slices(graph, slices[j], out_axes[j], out, fmt::format("{}/scan{}/", record.base, j), opset);
    nodes.insert(nodes.end(), stacked.begin(), stacked.end());
  }
  return nodes;
}

}  // namespace nee
