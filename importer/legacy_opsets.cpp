#include "importer/legacy_opsets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>

#include "core/error.h"
#include "core/half_float.h"
#include "importer/node_checks.h"

namespace nee {

namespace {

// The opset from which the import functions read nodes unchanged.
constexpr int64_t kImplementedOpset = 7;

using Upgrade = std::vector<Node> (*)(const ImportContext& ctx, Graph& graph, Node& node);

// A Reshape of input `index` of `node` to `shape`, which `node` then reads instead.
Node reshape_input(Graph& graph, Node& node, size_t index, const std::vector<int64_t>& shape) {
  Tensor target(DType::i64, {static_cast<int64_t>(shape.size())});
  std::copy(shape.begin(), shape.end(), target.data_as<int64_t>());
  const std::string prefix = fmt::format("{}:legacy_input{}", node.name, index);
  graph.add_constant(prefix + "_shape", target);
  Node reshape;
  reshape.op = "Reshape";
  reshape.name = prefix + "_reshape";
  reshape.inputs = {node.inputs[index], prefix + "_shape"};
  reshape.outputs = {prefix};
  node.inputs[index] = prefix;
  return reshape;
}

// Opset 1 to 6 versions whose only change at opset 6 was dropping `consumed_inputs`
// (a hint for in-place memory reuse, without meaning for the result).
std::vector<Node> no_change(const ImportContext&, Graph&, Node&) { return {}; }

// Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less before opset 7: without
// broadcast=1 both operands have one shape; with it B is broadcast to A, its dims lined
// up with A's from `axis` on (default: A's last dims), each equal to A's or 1. Opset 7's
// numpy broadcasting gives the same result once B has A's trailing dims as ones.
std::vector<Node> upgrade_legacy_broadcast(const ImportContext& ctx, Graph& graph, Node& node) {
  expect_arity(node, 2, 2, 1);
  const bool broadcast = node.attrs.get_int("broadcast", 0) != 0;
  const bool has_axis = node.attrs.has("axis");
  const int64_t axis_attr = node.attrs.get_int("axis", 0);
  node.attrs.erase("broadcast");
  node.attrs.erase("axis");
  const TensorType& a = ctx.graph.type_of(node.inputs[0]);
  const TensorType& b = ctx.graph.type_of(node.inputs[1]);
  if (!broadcast) {
    if (a.shape != b.shape) {
      throw Error(fmt::format("A {} and B {} differ in shape, which opset {} allows only with broadcast=1",
                              a.to_string(), b.to_string(), ctx.opset));
    }
    return {};
  }
  const int64_t rank = static_cast<int64_t>(a.shape.size()), b_rank = static_cast<int64_t>(b.shape.size());
  const int64_t axis = has_axis ? normalize_axis(axis_attr, a.shape.size(), "axis") : rank - b_rank;
  bool fits = axis >= 0 && axis + b_rank <= rank;
  for (int64_t i = 0; fits && i < b_rank; ++i) fits = b.shape[i] == 1 || b.shape[i] == a.shape[axis + i];
  if (!fits) {
    throw Error(fmt::format("B {} does not broadcast to A {} from axis {}", b.to_string(), a.to_string(), axis));
  }
  if (axis + b_rank == rank) return {};
  std::vector<int64_t> shape = b.shape;
  shape.resize(rank - axis, 1);
  return {reshape_input(graph, node, 1, shape)};
}

// Gemm before opset 7 said with `broadcast` whether C broadcasts to M x N; opset 7
// always broadcasts it, which gives the same result for every C the old version took.
std::vector<Node> upgrade_gemm(const ImportContext&, Graph&, Node& node) {
  node.attrs.erase("broadcast");
  return {};
}

// BatchNormalization and Dropout before opset 7 ran in training mode unless is_test=1
// (batch statistics; a random mask). NEE runs inference only, as opset 7 defines it.
std::vector<Node> upgrade_is_test(const ImportContext& ctx, Graph&, Node& node) {
  if (node.attrs.get_int("is_test", 0) == 0) {
    throw Error(fmt::format("is_test=0 (the default before opset 7) asks for training mode; NEE runs {} in "
                            "inference mode only (is_test=1, opset {})", node.op, ctx.opset));
  }
  node.attrs.erase("is_test");
  return {};
}

// PRelu before opset 7 took a slope of one value or one per channel (dim 1 of X);
// opset 7 broadcasts the slope from X's last dims, so a per-channel slope of X of rank
// 3 or more becomes C x 1 x ... x 1.
std::vector<Node> upgrade_prelu(const ImportContext& ctx, Graph& graph, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& x = ctx.graph.type_of(node.inputs[0]);
  const TensorType& slope = ctx.graph.type_of(node.inputs[1]);
  if (slope.shape.size() != 1 || slope.shape[0] == 1 || x.shape.size() < 3) return {};
  if (slope.shape[0] != x.shape[1]) {
    throw Error(fmt::format("slope {} has neither one value nor one per channel of X {}", slope.to_string(),
                            x.to_string()));
  }
  std::vector<int64_t> shape(x.shape.size() - 1, 1);
  shape[0] = slope.shape[0];
  return {reshape_input(graph, node, 1, shape)};
}

// Selu opset 1's defaults were alpha 1.6732 and gamma 1.0507, shortened from opset 6's.
std::vector<Node> upgrade_selu(const ImportContext&, Graph&, Node& node) {
  node.attrs.set("alpha", node.attrs.get_float("alpha", 1.6732f));
  node.attrs.set("gamma", node.attrs.get_float("gamma", 1.0507f));
  return {};
}

// Cast opset 1 named its target dtype as a string ("FLOAT"); opset 6 as the enum.
std::vector<Node> upgrade_cast(const ImportContext&, Graph&, Node& node) {
  const auto& all = node.attrs.all();
  const auto to = all.find("to");
  if (to == all.end() || !std::holds_alternative<std::string>(to->second)) return {};
  const std::string name = std::get<std::string>(to->second);
  onnx::TensorProto::DataType value{};
  if (!onnx::TensorProto::DataType_Parse(name, &value)) {
    throw Error(fmt::format("attribute 'to' is '{}', which names no ONNX dtype", name));
  }
  node.attrs.set("to", static_cast<int64_t>(value));
  return {};
}

// Concat opset 1's axis was optional, default 1; from opset 4 it is required.
std::vector<Node> upgrade_concat(const ImportContext&, Graph&, Node& node) {
  node.attrs.set("axis", node.attrs.get_int("axis", 1));
  return {};
}

// Reshape opset 1 took the target shape as an attribute; from opset 5 it is an input.
std::vector<Node> upgrade_reshape(const ImportContext&, Graph& graph, Node& node) {
  expect_arity(node, 1, 1, 1);
  const std::vector<int64_t> shape = node.attrs.get_ints("shape");
  node.attrs.erase("shape");
  Tensor target(DType::i64, {static_cast<int64_t>(shape.size())});
  std::copy(shape.begin(), shape.end(), target.data_as<int64_t>());
  const std::string name = node.name + ":legacy_shape";
  graph.add_constant(name, target);
  node.inputs.push_back(name);
  return {};
}

// Pad opset 1 called its pads `paddings`.
std::vector<Node> upgrade_pad(const ImportContext&, Graph&, Node& node) {
  if (node.attrs.has("paddings")) {
    node.attrs.set("pads", node.attrs.get_ints("paddings"));
    node.attrs.erase("paddings");
  }
  return {};
}

// Split opset 1 took the part sizes as an attribute or as a second input, and had no
// default axis; opset 2 takes the attribute only, with axis 0 by default. The input has
// the data's type T (float16, float or double: ONNX's Split-1 schema), holding whole numbers.
std::vector<Node> upgrade_split(const ImportContext& ctx, Graph&, Node& node) {
  if (node.inputs.size() == 2 && !node.inputs[1].empty()) {
    const Tensor* split = ctx.graph.constant(node.inputs[1]);
    if (!split || split->shape().size() != 1) {
      throw Error(fmt::format("split input '{}' must be a constant 1-D tensor; NEE needs static shapes",
                              node.inputs[1]));
    }
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < split->elements(); ++i) {
      double size = 0;
      switch (split->dtype()) {
        case DType::f32: size = split->data_as<float>()[i]; break;
        case DType::f64: size = split->data_as<double>()[i]; break;
        case DType::f16: size = f16_to_f32(split->data_as<uint16_t>()[i]); break;
        default:
          throw Error(fmt::format("split input '{}' is {}; Split-1 takes the data's type", node.inputs[1],
                                  split->type().to_string()));
      }
      if (size != std::floor(size) || size < 0) {
        throw Error(fmt::format("split input '{}' holds {}, which is no part size", node.inputs[1], size));
      }
      sizes.push_back(static_cast<int64_t>(size));
    }
    node.attrs.set("split", sizes);
  }
  node.inputs.resize(1);
  return {};
}

// Each operator whose definition at opset 7 replaced an older one, with the rewrite
// into it. Operators missing here that changed before opset 7 (Tile's inputs until
// opset 6, Upsample's scale attributes, the recurrent layers' output_sequence) are refused.
const std::map<std::string, Upgrade>& upgrades() {
  static const std::map<std::string, Upgrade> table = {
      {"Abs", no_change},
      {"Add", upgrade_legacy_broadcast},
      {"And", upgrade_legacy_broadcast},
      {"AveragePool", no_change},  // opset 7 added count_include_pad, default 0: the old behaviour
      {"BatchNormalization", upgrade_is_test},
      {"Cast", upgrade_cast},
      {"Ceil", no_change},
      {"Clip", no_change},
      {"Concat", upgrade_concat},
      {"Div", upgrade_legacy_broadcast},
      {"Dropout", upgrade_is_test},
      {"Elu", no_change},
      {"Equal", upgrade_legacy_broadcast},
      {"Exp", no_change},
      {"Floor", no_change},
      {"Gemm", upgrade_gemm},
      {"Greater", upgrade_legacy_broadcast},
      {"HardSigmoid", no_change},
      {"InstanceNormalization", no_change},
      {"LeakyRelu", no_change},
      {"Less", upgrade_legacy_broadcast},
      {"Log", no_change},
      {"Max", no_change},
      {"Mean", no_change},
      {"Min", no_change},
      {"Mul", upgrade_legacy_broadcast},
      {"Neg", no_change},
      {"Or", upgrade_legacy_broadcast},
      {"PRelu", upgrade_prelu},
      {"Pad", upgrade_pad},
      {"Pow", upgrade_legacy_broadcast},
      {"Reciprocal", no_change},
      {"Relu", no_change},
      {"Reshape", upgrade_reshape},
      {"Selu", upgrade_selu},
      {"Sigmoid", no_change},
      {"Split", upgrade_split},
      {"Sqrt", no_change},
      {"Sub", upgrade_legacy_broadcast},
      {"Sum", no_change},
      {"Tanh", no_change},
      {"Xor", upgrade_legacy_broadcast},
  };
  return table;
}

// The opset in which the definition of `op` in force at opset 7 appeared, or 0 for
// an operator introduced after opset 7.
int64_t since_version_at_opset7(const std::string& op) {
  static const std::map<std::string, int64_t> since = {
#include "importer/opset7_versions.inc"
  };
  auto it = since.find(op);
  return it == since.end() ? 0 : it->second;
}

bool needs_upgrade(const std::string& op, int64_t opset) {
  const int64_t since = since_version_at_opset7(op);
  return opset < kImplementedOpset && since != 0 && since > opset;
}

}  // namespace

std::string legacy_version_problem(const std::string& op, int64_t opset) {
  if (opset >= kImplementedOpset) return "";
  const int64_t since = since_version_at_opset7(op);
  if (since == 0) {
    return fmt::format("operator '{}' does not exist at opset {} (the model's); it came later", op, opset);
  }
  if (since <= opset || upgrades().count(op)) return "";
  return fmt::format("operator '{}' at opset {} is an older version than NEE reads (it reads the version in "
                     "force at opset {}, and from opset {} on)", op, opset, since, kImplementedOpset);
}

std::vector<Node> upgrade_legacy_node(const ImportContext& ctx, Graph& graph, Node& node) {
  if (!needs_upgrade(node.op, ctx.opset)) return {};
  node.attrs.erase("consumed_inputs");
  return upgrades().at(node.op)(ctx, graph, node);
}

}  // namespace nee
