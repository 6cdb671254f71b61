#include "importer/type_constraints.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"

namespace nee {

namespace {

// The ONNX type string of a tensor of `dtype`, as schemas write them.
std::string onnx_tensor_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return "tensor(float)";
    case DType::f64: return "tensor(double)";
    case DType::f16: return "tensor(float16)";
    case DType::bf16: return "tensor(bfloat16)";
    case DType::i64: return "tensor(int64)";
    case DType::i32: return "tensor(int32)";
    case DType::i16: return "tensor(int16)";
    case DType::i8: return "tensor(int8)";
    case DType::u64: return "tensor(uint64)";
    case DType::u32: return "tensor(uint32)";
    case DType::u16: return "tensor(uint16)";
    case DType::u8: return "tensor(uint8)";
    case DType::boolean: return "tensor(bool)";
    case DType::string: return "tensor(string)";
  }
  throw Error("no ONNX type for " + to_string(dtype));
}

// The newest default-domain opset the onnx library NEE is built with defines (17 for
// Debian's onnx 1.12).
int64_t library_opset() {
  return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
}

// The operator's schema at `opset`; null for an operator that came after the library's
// last opset (Gelu, opset 20), which its importer checks alone.
const onnx::OpSchema* schema_of(const Node& node, int64_t opset) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op, static_cast<int>(opset), onnx::ONNX_DOMAIN);
  if (schema) return schema;
  const onnx::OpSchema* latest = onnx::OpSchemaRegistry::Schema(node.op, onnx::ONNX_DOMAIN);
  if (!latest && opset > library_opset()) return nullptr;
  if (!latest) throw Error(fmt::format("operator '{}' is not an ONNX operator", node.op));
  int first = latest->SinceVersion();  // walked back to the operator's first version, past the model's opset
  while (const onnx::OpSchema* older = onnx::OpSchemaRegistry::Schema(node.op, first - 1, onnx::ONNX_DOMAIN)) {
    first = older->SinceVersion();
  }
  throw Error(fmt::format("operator '{}' came with opset {}; the model's default-domain opset is {}", node.op, first,
                          opset));
}

// The formal parameter that operand `index` binds to: its own, or the last one when that
// is variadic. Null past the formal parameters (the op's importer checks the arity).
const onnx::OpSchema::FormalParameter* formal_of(const std::vector<onnx::OpSchema::FormalParameter>& formals,
                                                  size_t index) {
  if (index < formals.size()) return &formals[index];
  if (!formals.empty() && formals.back().GetOption() == onnx::OpSchema::Variadic) return &formals.back();
  return nullptr;
}

// The types whose allowance lets `dtype` through past the library's last opset, where
// later versions added types to operators the library's schemas predate (onnx 1.23's
// schema history against 1.12's): opset 22 bfloat16 beside float16 on the operators that
// take floats (checked as float16 on all of them: Einsum and a few others had to wait for
// opset 28, and NEE computes bfloat16 in f32 either way), and the additions below, each
// checked as a type the operator took before.
std::vector<std::string> stand_in_types(const std::string& op, DType dtype, int64_t opset) {
  struct AddedType {
    const char* op;
    int64_t opset;
    DType dtype;
    const char* stand_in;
  };
  static const AddedType kAdded[] = {
      {"QuantizeLinear", 19, DType::f16, "tensor(float)"},    {"QuantizeLinear", 19, DType::bf16, "tensor(float)"},
      {"DequantizeLinear", 19, DType::f16, "tensor(float)"},  {"DequantizeLinear", 19, DType::bf16, "tensor(float)"},
      {"IsInf", 20, DType::f16, "tensor(float)"},             {"IsInf", 20, DType::bf16, "tensor(float)"},
      {"ReduceMax", 20, DType::boolean, "tensor(uint8)"},     {"ReduceMin", 20, DType::boolean, "tensor(uint8)"},
      {"QuantizeLinear", 21, DType::i16, "tensor(int8)"},     {"QuantizeLinear", 21, DType::u16, "tensor(uint8)"},
      {"DequantizeLinear", 21, DType::i16, "tensor(int8)"},   {"DequantizeLinear", 21, DType::u16, "tensor(uint8)"},
      {"QLinearMatMul", 21, DType::f16, "tensor(float)"},     {"QLinearMatMul", 21, DType::bf16, "tensor(float)"},
      {"Range", 27, DType::f16, "tensor(float)"},             {"Range", 27, DType::bf16, "tensor(float)"},
      {"Celu", 28, DType::f16, "tensor(float)"},              {"Celu", 28, DType::bf16, "tensor(float)"},
      {"Celu", 28, DType::f64, "tensor(float)"},              {"BitShift", 28, DType::i8, "tensor(uint8)"},
      {"BitShift", 28, DType::i16, "tensor(uint16)"},         {"BitShift", 28, DType::i32, "tensor(uint32)"},
      {"BitShift", 28, DType::i64, "tensor(uint64)"},
  };
  for (const AddedType& added : kAdded) {
    if (opset >= added.opset && op == added.op && dtype == added.dtype) return {added.stand_in};
  }
  constexpr int64_t kBfloat16Opset = 22;
  if (opset >= kBfloat16Opset && dtype == DType::bf16) return {"tensor(float16)"};
  return {};
}

// Past the library's last opset an operator's newest schema it knows stands for its
// version at the model's opset: those versions (18-28) changed attributes and inputs
// past the ones checked here, and added types (stand_in_types).
void check_operands(const Graph& graph, const Node& node, int64_t opset, bool inputs) {
  const onnx::OpSchema* found = schema_of(node, opset);
  if (!found) return;
  const onnx::OpSchema& schema = *found;
  const auto& formals = inputs ? schema.inputs() : schema.outputs();
  const std::vector<std::string>& names = inputs ? node.inputs : node.outputs;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty() || !graph.has_value(names[i])) continue;
    const onnx::OpSchema::FormalParameter* formal = formal_of(formals, i);
    if (!formal) continue;
    const DType dtype = graph.type_of(names[i]).dtype;
    const std::string type = onnx_tensor_type(dtype);
    const onnx::DataTypeSet& allowed = formal->GetTypes();
    // An optional-typed operand (IR 8) holds a tensor here when it is present.
    const auto takes = [&](const std::string& tensor_type) {
      return std::any_of(allowed.begin(), allowed.end(), [&](onnx::DataType t) {
        return *t == tensor_type || *t == "optional(" + tensor_type + ")";
      });
    };
    if (takes(type)) continue;
    if (opset > library_opset()) {
      const std::vector<std::string> stand_ins = stand_in_types(node.op, dtype, opset);
      if (std::any_of(stand_ins.begin(), stand_ins.end(), takes)) continue;
    }
    std::set<std::string> names_allowed;
    for (onnx::DataType t : allowed) names_allowed.insert(*t);
    const auto& params = schema.typeConstraintParams();
    const bool is_param = std::any_of(params.begin(), params.end(), [&](const onnx::OpSchema::TypeConstraintParam& p) {
      return p.type_param_str == formal->GetTypeStr();
    });
    const std::string rule = is_param
                                 ? fmt::format("{} is one of {}", formal->GetTypeStr(), fmt::join(names_allowed, ", "))
                                 : fmt::format("it must be {}", fmt::join(names_allowed, " or "));
    throw Error(fmt::format("{} {} '{}' is {}, which {} at opset {} (its version {}) does not take as its {} '{}': {}",
                            inputs ? "input" : "output", i, names[i], type, node.op, opset, schema.SinceVersion(),
                            inputs ? "input" : "output", formal->GetName(), rule));
  }
}

}  // namespace

void check_input_types(const Graph& graph, const Node& node, int64_t opset) {
  check_operands(graph, node, opset, true);
}

void check_output_types(const Graph& graph, const Node& node, int64_t opset) {
  check_operands(graph, node, opset, false);
}

}  // namespace nee
