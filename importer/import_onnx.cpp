#include "importer/import_onnx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/error.h"
#include "importer/constant_folding.h"
#include "importer/dequantized_weights.h"
#include "importer/control_flow.h"
#include "importer/half_precision.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/legacy_opsets.h"
#include "importer/onnx_constants.h"
#include "importer/op_importer.h"
#include "importer/sequences.h"
#include "importer/type_constraints.h"
#include "importer/value_needed.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

namespace {

// Opset assumed when a model declares none for the default domain.
constexpr int64_t kAssumedOpset = 13;
// Default-domain opsets NEE reads; opsets 1 to 6 through importer/legacy_opsets.h. Opsets
// 18 to 27 (what PyTorch's dynamo exporter and onnx 1.13-1.22 write) changed the
// operators NEE reads as each importer handles (axes of Reduce* and Pad as inputs, Split's
// num_outputs, Resize's new attributes, GridSample's mode names, DFT's axis input,
// quantization blocks and precisions, the Gelu, RMSNormalization and Swish ops, the Attention
// and RotaryEmbedding functions, expanded into their nodes), or else only added data types
// (float8, float4, 4- and 2-bit ints, bfloat16), which the importer refuses by name where a
// model uses them. Opset 28 (onnx 1.23) added SpaceToDepth's mode, the SwiGLU function
// (expanded) and float6 types, and made Mod's floating-point special cases explicit.
constexpr int64_t kMinOpset = 1, kMaxOpset = 28;
// IR version 3 introduced opset_import; older models cannot say which operators they use.
constexpr int64_t kMinIrVersion = 3;
// IR versions 9 to 14 (onnx 1.14-1.23) added data types (float8, float4, float6, 4- and
// 2-bit ints: refused by name), overloads of model-local functions (which NEE does not
// read: their nodes are unsupported operators) and opaque types outside ONNX-ML; the onnx
// library NEE is built with parses them, its protobuf skipping the fields it does not
// know. Later versions may mean what it cannot read.
constexpr int64_t kMaxIrVersion = 14;
static_assert(onnx::IR_VERSION <= kMaxIrVersion);

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// What every model must be before its graph is read: an IR version NEE reads and a
// graph that declares outputs.
void check_model(const onnx::ModelProto& model) {
  if (model.ir_version() < kMinIrVersion || model.ir_version() > kMaxIrVersion) {
    throw Error(fmt::format("the model has IR version {}; NEE reads IR versions {} to {} (onnx 1.23's)",
                            model.ir_version(), kMinIrVersion, kMaxIrVersion));
  }
  if (!model.has_graph()) throw Error("the model has no graph (ModelProto.graph is missing): there is nothing to run");
  if (model.graph().output_size() == 0) {
    throw Error(fmt::format("the model's graph '{}' declares no outputs ({} nodes, {} inputs); a model must "
                            "compute at least one output",
                            model.graph().name(), model.graph().node_size(), model.graph().input_size()));
  }
}

int64_t default_domain_opset(const onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import()) {
    if (!is_default_domain(opset.domain())) continue;
    if (opset.version() < kMinOpset || opset.version() > kMaxOpset) {
      throw Error(fmt::format("the model uses default-domain opset {}; NEE supports opsets {} to {}",
                              opset.version(), kMinOpset, kMaxOpset));
    }
    return opset.version();
  }
  spdlog::warn("model declares no opset for the default ONNX domain; assuming {}", kAssumedOpset);
  return kAssumedOpset;
}

std::string supported_ops() {
  std::set<std::string> names;
  for (const auto& entry : op_importers()) names.insert(entry.first);
  names.insert(ControlFlow::operators().begin(), ControlFlow::operators().end());
  names.insert(SequenceValues::operators().begin(), SequenceValues::operators().end());
  names.insert(expanded_operators().begin(), expanded_operators().end());
  names.insert("Constant");
  return fmt::format("{}", fmt::join(names, ", "));
}

// A graph input's static shape: declared dims, with symbolic ones taken from
// `input_shapes` or, for a leading batch dim, set to 1.
std::vector<int64_t> resolve_input_shape(const onnx::ValueInfoProto& info, const InputShapes& input_shapes) {
  const std::string& name = info.name();
  const auto& tensor_type = info.type().tensor_type();
  auto given = input_shapes.find(name);
  if (!tensor_type.has_shape()) {
    if (given == input_shapes.end()) {
      throw Error(fmt::format("graph input '{}' declares no shape; give one with input shapes", name));
    }
    return given->second;
  }
  const auto& dims = tensor_type.shape().dim();
  if (given != input_shapes.end()) {
    if (given->second.size() != static_cast<size_t>(dims.size())) {
      throw Error(fmt::format("shape [{}] given for graph input '{}' has rank {}, the model declares rank {}",
                              fmt::join(given->second, ","), name, given->second.size(), dims.size()));
    }
    for (int i = 0; i < dims.size(); ++i) {
      if (dims[i].has_dim_value() && dims[i].dim_value() != given->second[i]) {
        throw Error(fmt::format("shape [{}] given for graph input '{}' contradicts its declared dim {} = {}",
                                fmt::join(given->second, ","), name, i, dims[i].dim_value()));
      }
    }
    return given->second;
  }
  std::vector<int64_t> shape;
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i].has_dim_value()) {
      shape.push_back(dims[i].dim_value());
      continue;
    }
    const std::string symbol = dims[i].has_dim_param() ? dims[i].dim_param() : "?";
    if (i != 0) {
      throw Error(fmt::format("graph input '{}' has dynamic dim {} ('{}'); NEE needs static shapes, "
                              "give this input's shape explicitly", name, i, symbol));
    }
    spdlog::warn("graph input '{}' has a symbolic batch dim '{}'; using 1 (give input shapes to choose)",
                 name, symbol);
    shape.push_back(1);
  }
  return shape;
}

TensorType declared_type(const onnx::ValueInfoProto& info, const std::string& what) {
  if (info.type().has_optional_type()) {
    throw Error(what + " is an optional, which NEE reads only inside a model, holding a tensor or nothing");
  }
  if (!info.type().has_tensor_type()) throw Error(what + " is not a tensor");
  return TensorType{dtype_from_onnx(info.type().tensor_type().elem_type(), what), {}};
}

// Checks the inferred type against what the model declares for a graph output or in
// value_info, where it declares a dtype or a static dim.
void check_declared_type(const onnx::ValueInfoProto& info, const TensorType& inferred, const std::string& what) {
  if (!info.type().has_tensor_type()) return;
  const auto& tensor_type = info.type().tensor_type();
  if (tensor_type.elem_type() != 0 && dtype_from_onnx(tensor_type.elem_type(), what) != inferred.dtype) {
    throw Error(fmt::format("{} is declared {} but computes {}", what,
                            to_string(dtype_from_onnx(tensor_type.elem_type(), what)), inferred.to_string()));
  }
  if (!tensor_type.has_shape()) return;
  const auto& dims = tensor_type.shape().dim();
  bool matches = static_cast<size_t>(dims.size()) == inferred.shape.size();
  for (int i = 0; matches && i < dims.size(); ++i) {
    matches = !dims[i].has_dim_value() || dims[i].dim_value() == inferred.shape[i];
  }
  if (!matches) {
    std::vector<std::string> declared;
    for (const auto& d : dims) declared.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param());
    throw Error(fmt::format("shape mismatch: {} is declared [{}] but computes {}", what,
                            fmt::join(declared, ","), inferred.to_string()));
  }
}

// Where a node stands after the import loop.
enum class NodeState { imported, folded, deferred, known };

// Imports what `known` lets it: graph inputs at `input_shapes` (or bound to
// `constant_inputs`), values computed by earlier stages as `computed`, and every node
// needed for the model outputs not computed yet. With `staged`, a node whose output
// shapes need a value not known yet is deferred with every node that reads its outputs,
// and the stage's outputs are what the deferred nodes read; without, it is an error.
// Every constant the import makes (initializers, Constant nodes, subgraph copies, folded
// values, bound inputs) reserves its bytes against caps.weights_bytes before it is
// allocated, and every tensor stays within caps.tensor_bytes.
Stage import_model(const onnx::ModelProto& model, const InputShapes& input_shapes,
                   const ConstantInputs& constant_inputs, const KnownValues& computed,
                   const std::optional<std::filesystem::path>& folder, bool staged, const MemoryCaps& caps) {
  check_model(model);
  const onnx::GraphProto& proto = model.graph();
  Graph graph;
  const ImportContext ctx{graph, default_domain_opset(model)};
  ByteBudget weights(caps.weights_bytes, "cap on the model's weights");
  ControlFlow control_flow(folder, weights, caps.tensor_bytes);
  SequenceValues sequences;

  if (proto.sparse_initializer_size() > 0) throw Error("sparse initializers are not supported");
  for (const onnx::TensorProto& init : proto.initializer()) {
    const std::string what = fmt::format("initializer '{}'", init.name());
    weights.reserve(checked_bytes(tensor_proto_type(init, what), what, caps.tensor_bytes), what);
    graph.add_constant(init.name(), load_tensor(init, folder, what, caps.tensor_bytes));
  }

  std::set<std::string> declared_inputs;
  for (const onnx::ValueInfoProto& info : proto.input()) {
    if (graph.constant(info.name())) continue;  // older models list initializers as inputs
    const std::string what = fmt::format("graph input '{}'", info.name());
    TensorType type = declared_type(info, what);
    declared_inputs.insert(info.name());
    auto bound = constant_inputs.find(info.name());
    if (bound == constant_inputs.end()) {
      type.shape = resolve_input_shape(info, input_shapes);
      checked_elements(type, what, caps.tensor_bytes);
      graph.add_value(info.name(), type);
      graph.add_input(info.name());
      continue;
    }
    check_declared_type(info, bound->second.type(), what);
    weights.reserve(checked_bytes(bound->second.type(), what, caps.tensor_bytes), what);
    graph.add_constant(info.name(), bound->second);
  }
  for (const auto& entry : input_shapes) {
    if (!declared_inputs.count(entry.first)) {
      throw Error(fmt::format("a shape is given for '{}', which is not a graph input", entry.first));
    }
  }
  for (const auto& entry : constant_inputs) {
    if (!declared_inputs.count(entry.first)) {
      throw Error(fmt::format("a value is given for '{}', which is not a graph input", entry.first));
    }
  }

  std::set<std::string> node_names;
  for (int i = 0; i < proto.node_size(); ++i) {
    const onnx::NodeProto& node_proto = proto.node(i);
    std::string name = node_proto.name().empty() ? fmt::format("{}_{}", node_proto.op_type(), i) : node_proto.name();
    if (!node_names.insert(name).second) name = fmt::format("{}_{}", name, i);
    const std::string what = fmt::format("node '{}' ({})", name, node_proto.op_type());
    if (!is_default_domain(node_proto.domain())) {
      throw Error(fmt::format("unsupported operator '{}' from domain '{}' at node '{}'",
                              node_proto.op_type(), node_proto.domain(), name));
    }
    if (node_proto.op_type() == "Constant") {
      if (node_proto.output_size() != 1) throw Error(what + " must have one output");
      graph.add_constant(node_proto.output(0),
                         constant_node_value(node_proto, folder, what, weights, caps.tensor_bytes));
      continue;
    }
    if (!op_importers().count(node_proto.op_type()) && !ControlFlow::handles(node_proto.op_type()) &&
        !SequenceValues::operators().count(node_proto.op_type()) && !is_expanded_operator(node_proto.op_type())) {
      throw Error(fmt::format("unsupported operator '{}' at node '{}' (supported: {})",
                              node_proto.op_type(), name, supported_ops()));
    }
    const std::string too_old = legacy_version_problem(node_proto.op_type(), ctx.opset);
    if (!too_old.empty()) throw Error(fmt::format("node '{}': {}", name, too_old));
    graph.add_node(control_flow.make_node(node_proto, name, {}));
  }

  std::set<std::string> produced;
  for (const std::string& name : graph.value_names()) produced.insert(name);
  for (const Node& node : graph.nodes()) {
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      if (!produced.insert(out).second) {
        throw Error(fmt::format("value '{}' is defined twice (again by node '{}')", out, node.name));
      }
    }
  }
  for (const Node& node : graph.nodes()) {
    for (const std::string& in : node.inputs) {
      if (!in.empty() && !produced.count(in)) {
        throw Error(fmt::format("node '{}' ({}) reads '{}', which is no graph input, initializer or "
                                "node output", node.name, node.op, in));
      }
    }
  }
  std::vector<std::string> model_outputs;
  for (const onnx::ValueInfoProto& info : proto.output()) {
    if (!info.type().has_tensor_type() && info.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) {
      throw Error(fmt::format("graph output '{}' is not a tensor", info.name()));
    }
    if (!produced.count(info.name())) {
      throw Error(fmt::format("graph output '{}' is not computed by any node", info.name()));
    }
    model_outputs.push_back(info.name());
  }

  // The model's own constants: never a stage output (a weight's bytes would key the next stage).
  std::set<std::string> model_constants;
  for (const std::string& name : graph.value_names()) {
    if (graph.constant(name)) model_constants.insert(name);
  }
  // Values earlier stages computed: inputs or constants here, their producers skipped.
  std::set<std::string> known;
  for (const auto& [name, type] : computed.typed) {
    if (graph.has_value(name)) continue;  // a graph input, bound above
    graph.add_value(name, type);
    graph.add_input(name);
    known.insert(name);
  }
  for (const auto& [name, value] : computed.constants) {
    if (graph.has_value(name)) continue;
    graph.add_constant(name, value);
    known.insert(name);
  }

  // Only nodes the outputs not known yet need are imported.
  graph.sort_topologically();
  std::set<std::string> needed;
  for (const std::string& out : model_outputs) {
    if (!graph.has_value(out)) needed.insert(out);
  }
  std::vector<Node> wanted;
  for (auto node = graph.nodes().rbegin(); node != graph.nodes().rend(); ++node) {
    const bool is_needed = std::any_of(node->outputs.begin(), node->outputs.end(), [&](const std::string& out) {
      return !out.empty() && needed.count(out) && !graph.has_value(out);
    });
    if (!is_needed) continue;
    for (const std::string& in : node->inputs) {
      if (!in.empty() && !graph.has_value(in)) needed.insert(in);
    }
    wanted.push_back(std::move(*node));
  }
  std::reverse(wanted.begin(), wanted.end());
  graph.nodes() = std::move(wanted);

  std::vector<NodeState> states;
  std::set<std::string> values_needed;
  std::optional<ValueNeeded> first_deferral;
  const auto defer = [&](const ValueNeeded& e, const Node& node) {
    if (!first_deferral) first_deferral.emplace(fmt::format("node '{}' ({}): {}", node.name, node.op, e.what()), e.value());
    if (graph.has_value(e.value())) values_needed.insert(e.value());
    states.push_back(NodeState::deferred);
  };
  const auto import_node = [&](Node& node) {
    std::vector<TensorType> types;
    try {
      types = op_importers().at(node.op)(ctx, node);
    } catch (const ValueNeeded&) {
      throw;
    } catch (const Error& e) {
      throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op, e.what()));
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      checked_elements(types[i], fmt::format("output '{}' of node '{}' ({})", node.outputs[i], node.name, node.op),
                       caps.tensor_bytes);
      graph.add_value(node.outputs[i], types[i]);
    }
    try {
      const bool folded = fold_constant_node(graph, node, weights);
      if (folded) note_dequantized_origin(graph, node);
      states.push_back(folded ? NodeState::folded : NodeState::imported);
    } catch (const Error& e) {
      throw Error(fmt::format("node '{}' ({}): evaluating it at import: {}", node.name, node.op, e.what()));
    }
  };
  // Nodes an upgrade or the half-precision wrap adds go in at `at` and are imported in order,
  // but for those whose outputs an earlier stage computed (the casts before a node that
  // waited for a value there).
  const auto insert_and_import = [&](size_t& at, std::vector<Node>& added) {
    for (Node& node : added) {
      if (std::all_of(node.outputs.begin(), node.outputs.end(),
                      [&](const std::string& out) { return out.empty() || known.count(out); })) {
        continue;
      }
      graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(at), std::move(node));
      import_node(graph.nodes()[at++]);
    }
  };
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    Node& node = graph.nodes()[i];
    // A node an expansion made again, whose outputs an earlier stage computed.
    size_t known_outputs = 0, outputs = 0;
    for (std::string& out : node.outputs) {
      if (out.empty()) continue;
      ++outputs;
      if (known.count(out)) {
        ++known_outputs;
        out = fmt::format("{}@recomputed", out);
      }
    }
    if (known_outputs > 0 && known_outputs == outputs) {
      states.push_back(NodeState::known);
      continue;
    }
    if (std::any_of(node.inputs.begin(), node.inputs.end(), [&](const std::string& in) {
          return !in.empty() && !graph.has_value(in) && !sequences.is_sequence(in);
        })) {
      states.push_back(NodeState::deferred);  // reads what a deferred node computes
      continue;
    }
    if (ControlFlow::handles(node.op) || sequences.handles(node) || is_expanded_operator(node.op)) {
      std::vector<Node> expansion;
      try {
        if (ControlFlow::handles(node.op)) {
          expansion = control_flow.expand(graph, node, ctx.opset);
        } else if (is_expanded_operator(node.op)) {
          expansion = expand_operator(graph, node, ctx.opset);
        } else {
          expansion = sequences.expand(graph, node, ctx.opset);
        }
      } catch (const ValueNeeded& e) {
        defer(e, node);
        continue;
      } catch (const Error& e) {
        throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op, e.what()));
      }
      graph.nodes().erase(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i));
      graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i),
                           std::make_move_iterator(expansion.begin()), std::make_move_iterator(expansion.end()));
      --i;
      continue;
    }
    // The node as the model writes it, before an upgrade or the half-precision wrap
    // rewrites it: its operands are checked against its operator's ONNX type constraints.
    const Node as_written = graph.nodes()[i];
    try {
      check_input_types(graph, as_written, ctx.opset);
    } catch (const Error& e) {
      throw Error(fmt::format("node '{}' ({}): {}", as_written.name, as_written.op, e.what()));
    }
    try {
      std::vector<Node> before;
      try {
        before = upgrade_legacy_node(ctx, graph, graph.nodes()[i]);
      } catch (const ValueNeeded&) {
        throw;
      } catch (const Error& e) {
        const Node& n = graph.nodes()[i];
        throw Error(fmt::format("node '{}' ({} of opset {}): {}", n.name, n.op, ctx.opset, e.what()));
      }
      insert_and_import(i, before);
      HalfPrecisionWrap wrap;
      std::vector<Node> casts = cast_half_inputs(ctx, graph.nodes()[i], wrap);
      insert_and_import(i, casts);
      import_node(graph.nodes()[i]);
      casts = cast_half_outputs(graph, graph.nodes()[i], wrap);
      size_t after = i + 1;
      insert_and_import(after, casts);
      i = after - 1;
      try {
        check_output_types(graph, as_written, ctx.opset);
      } catch (const Error& e) {
        throw Error(fmt::format("node '{}' ({}): {}", as_written.name, as_written.op, e.what()));
      }
    } catch (const ValueNeeded& e) {
      defer(e, graph.nodes()[i]);
    }
  }
  if (first_deferral && !staged) throw *first_deferral;

  // The stage's outputs: model outputs it computes, and what the deferred nodes read.
  std::set<std::string> exported;
  for (const std::string& out : model_outputs) {
    if (graph.has_value(out) && !known.count(out) && !exported.count(out)) {
      exported.insert(out);
      graph.add_output(out);
    }
  }
  std::set<std::string> deferred_reads;
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i] != NodeState::deferred) continue;
    std::vector<std::string> reads;
    for (const std::string& in : graph.nodes()[i].inputs) {
      if (!sequences.is_sequence(in)) {
        reads.push_back(in);
        continue;
      }
      const std::vector<std::string>& elements = sequences.elements(in);  // a sequence is its tensors
      reads.insert(reads.end(), elements.begin(), elements.end());
    }
    deferred_reads.insert(reads.begin(), reads.end());
    for (const std::string& in : reads) {
      if (in.empty() || !graph.has_value(in) || known.count(in) || model_constants.count(in) || exported.count(in)) {
        continue;
      }
      if (std::find(graph.inputs().begin(), graph.inputs().end(), in) != graph.inputs().end()) continue;
      exported.insert(in);
      graph.add_output(in);
    }
  }
  // Nodes none of the outputs reads (a branch's leftovers, a body recomputed) go.
  std::set<std::string> read(exported.begin(), exported.end());
  std::vector<Node> kept;
  for (size_t i = states.size(); i-- > 0;) {
    Node& node = graph.nodes()[i];
    const bool used = std::any_of(node.outputs.begin(), node.outputs.end(),
                                  [&](const std::string& out) { return read.count(out) != 0; });
    if (states[i] != NodeState::imported || !used) continue;
    read.insert(node.inputs.begin(), node.inputs.end());
    kept.push_back(std::move(node));
  }
  std::reverse(kept.begin(), kept.end());
  graph.nodes() = std::move(kept);
  // So do constants nothing reads: a folded node's inputs (a weight its Transpose or
  // Reshape made a copy of, which the model would otherwise hold twice), a branch's.
  for (const std::string& name : graph.value_names()) {
    if (graph.constant(name) && !read.count(name) && !deferred_reads.count(name) && !graph.is_output(name)) {
      graph.remove_value(name);
    }
  }

  for (const onnx::ValueInfoProto& info : proto.value_info()) {
    if (!graph.has_value(info.name())) continue;  // describes a value no node computes
    check_declared_type(info, graph.type_of(info.name()), fmt::format("value '{}' (value_info)", info.name()));
  }
  for (const onnx::ValueInfoProto& info : proto.output()) {
    if (!graph.has_value(info.name())) continue;
    check_declared_type(info, graph.type_of(info.name()), fmt::format("graph output '{}'", info.name()));
  }
  return Stage{std::move(graph), std::move(values_needed)};
}

}  // namespace

Graph import_onnx_bytes(const std::string& bytes, const InputShapes& input_shapes,
                        const ConstantInputs& constant_inputs, const MemoryCaps& caps) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    throw Error("the data is not a valid ONNX model (truncated or malformed protobuf)");
  }
  return import_model(model, input_shapes, constant_inputs, {}, std::nullopt, false, caps).graph;
}

namespace {

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot open ONNX model '{}'", path));
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes.str())) {
    throw Error(fmt::format("'{}' is not a valid ONNX model (truncated or malformed protobuf)", path));
  }
  return model;
}

}  // namespace

std::vector<std::string> onnx_graph_input_names(const std::string& path) {
  const onnx::ModelProto model = read_model(path);
  std::set<std::string> initialized;
  for (const onnx::TensorProto& init : model.graph().initializer()) initialized.insert(init.name());
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto& info : model.graph().input()) {
    if (!initialized.count(info.name())) names.push_back(info.name());
  }
  return names;
}

Graph import_onnx(const std::string& path, const InputShapes& input_shapes, const ConstantInputs& constant_inputs,
                  const MemoryCaps& caps) {
  const onnx::ModelProto model = read_model(path);
  try {
    return import_model(model, input_shapes, constant_inputs, {}, std::filesystem::absolute(path).parent_path(), false,
                        caps)
        .graph;
  } catch (const ValueNeeded& e) {
    throw ValueNeeded(fmt::format("{}: {}", path, e.what()), e.value());
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

Graph import_onnx_first_stage(const std::string& path, const InputShapes& input_shapes, bool& complete,
                              const MemoryCaps& caps) {
  const onnx::ModelProto model = read_model(path);
  try {
    Stage stage = import_model(model, input_shapes, {}, {}, std::filesystem::absolute(path).parent_path(), true, caps);
    complete = true;
    for (const onnx::ValueInfoProto& info : model.graph().output()) {
      complete = complete && stage.graph.has_value(info.name());
    }
    return std::move(stage.graph);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

namespace {

DeclaredValue declaration_of(const onnx::ValueInfoProto& info, const std::string& what) {
  DeclaredValue d;
  d.name = info.name();
  if (!info.type().has_tensor_type()) return d;
  const auto& tensor_type = info.type().tensor_type();
  if (tensor_type.elem_type() != 0) d.dtype = dtype_from_onnx(tensor_type.elem_type(), what);
  d.has_shape = tensor_type.has_shape();
  for (const auto& dim : tensor_type.shape().dim()) {
    d.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    d.dim_names.push_back(dim.has_dim_param() ? dim.dim_param() : "");
  }
  return d;
}

// A model read once, imported stage by stage: the known graph inputs by their types
// (or values, where a shape depends on them), the rest as values earlier stages computed.
class OnnxStagedModel : public StagedModel {
 public:
  OnnxStagedModel(onnx::ModelProto model, std::optional<std::filesystem::path> folder, std::string label,
                  const MemoryCaps& caps)
      : model_(std::move(model)), folder_(std::move(folder)), label_(std::move(label)), caps_(caps) {
    try {
      check_model(model_);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", label_, e.what()));
    }
    std::set<std::string> initialized;
    for (const onnx::TensorProto& init : model_.graph().initializer()) initialized.insert(init.name());
    for (const onnx::ValueInfoProto& info : model_.graph().input()) {
      if (initialized.count(info.name())) continue;
      const std::string what = fmt::format("{}: graph input '{}'", label_, info.name());
      declared_type(info, what);
      inputs_.push_back(info.name());
      declared_inputs_.push_back(declaration_of(info, what));
    }
    for (const onnx::ValueInfoProto& info : model_.graph().output()) {
      if (info.type().has_sequence_type() || info.type().has_optional_type() || info.type().has_map_type()) {
        throw Error(fmt::format("{}: graph output '{}' is not a tensor", label_, info.name()));
      }
      outputs_.push_back(info.name());
      declared_outputs_.push_back(declaration_of(info, fmt::format("{}: graph output '{}'", label_, info.name())));
    }
  }
  std::vector<std::string> input_names() const override { return inputs_; }
  std::vector<std::string> output_names() const override { return outputs_; }
  std::vector<DeclaredValue> declared_inputs() const override { return declared_inputs_; }
  std::vector<DeclaredValue> declared_outputs() const override { return declared_outputs_; }

  Stage stage(const KnownValues& known) const override {
    InputShapes shapes;
    ConstantInputs bound;
    KnownValues computed;
    for (const std::string& name : inputs_) {
      if (auto c = known.constants.find(name); c != known.constants.end()) {
        bound.emplace(name, c->second);
      } else if (auto t = known.typed.find(name); t != known.typed.end()) {
        shapes.emplace(name, t->second.shape);
      }
    }
    for (const auto& [name, type] : known.typed) {
      if (!shapes.count(name)) computed.typed.emplace(name, type);
    }
    for (const auto& [name, value] : known.constants) {
      if (!bound.count(name)) computed.constants.emplace(name, value);
    }
    try {
      return import_model(model_, shapes, bound, computed, folder_, true, caps_);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", label_, e.what()));
    }
  }

 private:
  onnx::ModelProto model_;
  std::optional<std::filesystem::path> folder_;
  std::string label_;
  MemoryCaps caps_;
  std::vector<std::string> inputs_, outputs_;
  std::vector<DeclaredValue> declared_inputs_, declared_outputs_;
};

}  // namespace

std::shared_ptr<const StagedModel> load_staged_onnx(const std::string& path, const MemoryCaps& caps) {
  return std::make_shared<OnnxStagedModel>(read_model(path), std::filesystem::absolute(path).parent_path(), path,
                                           caps);
}

std::shared_ptr<const StagedModel> load_staged_onnx_bytes(const std::string& bytes, const MemoryCaps& caps) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    throw Error("the data is not a valid ONNX model (truncated or malformed protobuf)");
  }
  return std::make_shared<OnnxStagedModel>(std::move(model), std::nullopt, "the model", caps);
}

}  // namespace nee
