#include "importer/import_onnx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/error.h"
#include "importer/constant_folding.h"
#include "importer/half_precision.h"
#include "importer/legacy_opsets.h"
#include "importer/onnx_attributes.h"
#include "importer/op_importer.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

namespace {

// Opset assumed when a model declares none for the default domain.
constexpr int64_t kAssumedOpset = 13;
// Default-domain opsets NEE reads; opsets 1 to 6 through importer/legacy_opsets.h.
constexpr int64_t kMinOpset = 1, kMaxOpset = 17;
// IR version 3 introduced opset_import; older models cannot say which operators they use.
constexpr int64_t kMinIrVersion = 3;

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

int64_t default_domain_opset(const onnx::ModelProto& model) {
  if (model.ir_version() < kMinIrVersion) {
    throw Error(fmt::format("the model has IR version {}; NEE reads IR version {} or later", model.ir_version(),
                            kMinIrVersion));
  }
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

// A tensor stored outside the model: `location` (relative to the model's folder and
// inside it, a regular file), `offset` and `length` (default: to the end of the file).
// The bytes are memory-mapped, not read: the tensor views the mapping, so a model past
// protobuf's 2 GB costs page cache rather than a copy. The mapping is private
// (copy-on-write), so a pass that writes a constant in place gets its own pages. Data at
// an offset that is not a multiple of the element size is copied instead.
Tensor read_external_data(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                          const std::string& what) {
  namespace fs = std::filesystem;
  if (!folder) throw Error(what + " stores its data in an external file; import the model from its file");
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoull(entry.value());
      if (entry.key() == "length") length = std::stoull(entry.value());
    } catch (const std::exception&) {
      throw Error(fmt::format("{} has external data {} '{}', which is not a byte count", what, entry.key(),
                              entry.value()));
    }
  }
  if (location.empty()) throw Error(what + " stores its data externally but names no location");
  const fs::path relative(location);
  bool escapes = relative.is_absolute() || relative.has_root_name() || relative.has_root_directory();
  for (const fs::path& part : relative) escapes = escapes || part == "..";
  const fs::path file = *folder / relative;
  std::error_code ec;
  const fs::path real_folder = fs::weakly_canonical(*folder, ec), real_file = fs::weakly_canonical(file, ec);
  const auto mismatch = std::mismatch(real_folder.begin(), real_folder.end(), real_file.begin(), real_file.end());
  escapes = escapes || mismatch.first != real_folder.end();
  if (escapes) {
    throw Error(fmt::format("{} has external data location '{}', which leaves the model's folder", what, location));
  }
  if (!fs::is_regular_file(real_file, ec)) {
    throw Error(fmt::format("{}: external data file '{}' is missing or not a regular file", what, file.string()));
  }
  const TensorType type{dtype_from_onnx(proto.data_type(), what), {proto.dims().begin(), proto.dims().end()}};
  checked_elements(type, what);
  const uint64_t bytes = static_cast<uint64_t>(type.elements()) * dtype_size(type.dtype);
  const uint64_t size = fs::file_size(real_file, ec), begin = offset.value_or(0);
  if (ec || begin > size || (length && *length > size - begin)) {
    throw Error(fmt::format("{}: external data file '{}' has {} bytes, fewer than offset {} + length {}", what,
                            file.string(), size, begin, length.value_or(0)));
  }
  const uint64_t available = length.value_or(size - begin);
  if (available != bytes) {
    throw Error(fmt::format("{} declares shape {} ({} bytes) but its external data holds {} bytes", what,
                            type.to_string(), bytes, available));
  }
  if (bytes == 0) return Tensor(type);
  const int fd = ::open(real_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open external data file '{}'", what, file.string()));
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t map_begin = begin / page * page, map_bytes = begin - map_begin + bytes;
  void* mapped = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(map_begin));
  ::close(fd);
  if (mapped == MAP_FAILED) throw Error(fmt::format("{}: cannot map external data file '{}'", what, file.string()));
  std::shared_ptr<uint8_t> mapping(static_cast<uint8_t*>(mapped),
                                   [map_bytes](uint8_t* p) { ::munmap(p, map_bytes); });
  const Tensor view(type, mapping, begin - map_begin);
  return begin % dtype_size(type.dtype) == 0 ? view : view.clone();
}

// A TensorProto's value, reading external data relative to `folder` (the model's).
Tensor load_tensor(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                   const std::string& what) {
  if (proto.data_location() != onnx::TensorProto::EXTERNAL) return tensor_from_proto(proto, what);
  return read_external_data(proto, folder, what);
}

std::string supported_ops() {
  std::set<std::string> names;
  for (const auto& entry : op_importers()) names.insert(entry.first);
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

Tensor constant_node_value(const onnx::NodeProto& proto, const std::optional<std::filesystem::path>& folder,
                           const std::string& what) {
  if (proto.attribute_size() != 1) throw Error(what + " must have exactly one value attribute");
  const onnx::AttributeProto& attr = proto.attribute(0);
  if (attr.name() == "value") return load_tensor(attr.t(), folder, what);
  if (attr.name() == "value_float") {
    Tensor t(DType::f32, {});
    *t.data_as<float>() = attr.f();
    return t;
  }
  if (attr.name() == "value_int") {
    Tensor t(DType::i64, {});
    *t.data_as<int64_t>() = attr.i();
    return t;
  }
  if (attr.name() == "value_floats") {
    Tensor t(DType::f32, {attr.floats_size()});
    std::copy(attr.floats().begin(), attr.floats().end(), t.data_as<float>());
    return t;
  }
  if (attr.name() == "value_ints") {
    Tensor t(DType::i64, {attr.ints_size()});
    std::copy(attr.ints().begin(), attr.ints().end(), t.data_as<int64_t>());
    return t;
  }
  throw Error(fmt::format("{} uses attribute '{}', which NEE does not support", what, attr.name()));
}

Graph import_model(const onnx::ModelProto& model, const InputShapes& input_shapes,
                   const ConstantInputs& constant_inputs, const std::optional<std::filesystem::path>& folder) {
  const onnx::GraphProto& proto = model.graph();
  Graph graph;
  const ImportContext ctx{graph, default_domain_opset(model)};

  if (proto.sparse_initializer_size() > 0) throw Error("sparse initializers are not supported");
  for (const onnx::TensorProto& init : proto.initializer()) {
    graph.add_constant(init.name(), load_tensor(init, folder, fmt::format("initializer '{}'", init.name())));
  }

  std::set<std::string> declared_inputs;
  for (const onnx::ValueInfoProto& info : proto.input()) {
    if (graph.constant(info.name())) continue;  // older models list initializers as inputs
    const std::string what = fmt::format("graph input '{}'", info.name());
    TensorType type = declared_type(info, what);
    type.shape = resolve_input_shape(info, input_shapes);
    checked_elements(type, what);
    declared_inputs.insert(info.name());
    auto bound = constant_inputs.find(info.name());
    if (bound == constant_inputs.end()) {
      graph.add_value(info.name(), type);
      graph.add_input(info.name());
      continue;
    }
    check_declared_type(info, bound->second.type(), what);
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
      graph.add_constant(node_proto.output(0), constant_node_value(node_proto, folder, what));
      continue;
    }
    if (!op_importers().count(node_proto.op_type())) {
      throw Error(fmt::format("unsupported operator '{}' at node '{}' (supported: {})",
                              node_proto.op_type(), name, supported_ops()));
    }
    const std::string too_old = legacy_version_problem(node_proto.op_type(), ctx.opset);
    if (!too_old.empty()) throw Error(fmt::format("node '{}': {}", name, too_old));
    Node node;
    node.op = node_proto.op_type();
    node.name = name;
    node.inputs.assign(node_proto.input().begin(), node_proto.input().end());
    node.outputs.assign(node_proto.output().begin(), node_proto.output().end());
    node.attrs = attributes_from_onnx(node_proto, what);
    graph.add_node(std::move(node));
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

  graph.sort_topologically();
  std::vector<bool> folded;
  const auto import_node = [&](Node& node) {
    std::vector<TensorType> types;
    try {
      types = op_importers().at(node.op)(ctx, node);
    } catch (const Error& e) {
      throw Error(fmt::format("node '{}' ({}): {}", node.name, node.op, e.what()));
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      checked_elements(types[i], fmt::format("output '{}' of node '{}' ({})", node.outputs[i], node.name, node.op));
      graph.add_value(node.outputs[i], types[i]);
    }
    try {
      folded.push_back(fold_constant_node(graph, node));
    } catch (const Error& e) {
      throw Error(fmt::format("node '{}' ({}): evaluating it at import: {}", node.name, node.op, e.what()));
    }
  };
  // Nodes an upgrade or the half-precision wrap adds go in at `at` and are imported in order.
  const auto insert_and_import = [&](size_t& at, std::vector<Node>& added) {
    for (Node& node : added) {
      graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(at), std::move(node));
      import_node(graph.nodes()[at++]);
    }
  };
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    std::vector<Node> before;
    try {
      before = upgrade_legacy_node(ctx, graph, graph.nodes()[i]);
    } catch (const Error& e) {
      const Node& node = graph.nodes()[i];
      throw Error(fmt::format("node '{}' ({} of opset {}): {}", node.name, node.op, ctx.opset, e.what()));
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
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < folded.size(); ++i) {
    if (!folded[i]) kept.push_back(std::move(graph.nodes()[i]));
  }
  graph.nodes() = std::move(kept);

  for (const onnx::ValueInfoProto& info : proto.value_info()) {
    if (!graph.has_value(info.name())) continue;  // describes a value no node computes
    check_declared_type(info, graph.type_of(info.name()), fmt::format("value '{}' (value_info)", info.name()));
  }

  for (const onnx::ValueInfoProto& info : proto.output()) {
    if (!graph.has_value(info.name())) {
      throw Error(fmt::format("graph output '{}' is not computed by any node", info.name()));
    }
    check_declared_type(info, graph.type_of(info.name()), fmt::format("graph output '{}'", info.name()));
    graph.add_output(info.name());
  }
  return graph;
}

}  // namespace

Graph import_onnx_bytes(const std::string& bytes, const InputShapes& input_shapes,
                        const ConstantInputs& constant_inputs) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    throw Error("the data is not a valid ONNX model (truncated or malformed protobuf)");
  }
  return import_model(model, input_shapes, constant_inputs, std::nullopt);
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

Graph import_onnx(const std::string& path, const InputShapes& input_shapes, const ConstantInputs& constant_inputs) {
  const onnx::ModelProto model = read_model(path);
  try {
    return import_model(model, input_shapes, constant_inputs, std::filesystem::absolute(path).parent_path());
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace nee
