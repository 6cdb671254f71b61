#include "importer/expansions/node_expansion.h"

#include <algorithm>

#include "runtime/onnx_tensor.h"

namespace nee {

std::string NodeExpansion::int64s(const std::string& label, const std::vector<int64_t>& values) {
  return int64_tensor(label, {static_cast<int64_t>(values.size())}, values);
}

std::string NodeExpansion::int64_tensor(const std::string& label, const std::vector<int64_t>& shape,
                                        const std::vector<int64_t>& values) {
  Tensor t(DType::i64, shape);
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  graph_.add_constant(name(label), t);
  return name(label);
}

std::string NodeExpansion::float_scalar(const std::string& label, float value) {
  return float_tensor(label, {}, {value});
}

std::string NodeExpansion::scalar(const std::string& label, float value, DType dtype) {
  const std::string f32 = float_scalar(dtype == DType::f32 ? label : label + "_f32", value);
  return dtype == DType::f32 ? f32 : cast(label, f32, dtype);
}

std::string NodeExpansion::float_tensor(const std::string& label, const std::vector<int64_t>& shape,
                                        const std::vector<float>& values) {
  Tensor t(DType::f32, shape);
  std::copy(values.begin(), values.end(), t.data_as<float>());
  graph_.add_constant(name(label), t);
  return name(label);
}

std::string NodeExpansion::add(const std::string& op, const std::string& label, const std::vector<std::string>& inputs,
                               Attributes attrs, const std::string& output) {
  Node node{op, name(label), inputs, {output.empty() ? name(label) : output}, std::move(attrs)};
  nodes_.push_back(std::move(node));
  return nodes_.back().outputs[0];
}

std::string NodeExpansion::reshape(const std::string& label, const std::string& input,
                                   const std::vector<int64_t>& shape, const std::string& output) {
  return add("Reshape", label, {input, int64s(label + "_shape", shape)}, {}, output);
}

std::string NodeExpansion::transpose(const std::string& label, const std::string& input,
                                     const std::vector<int64_t>& perm, const std::string& output) {
  Attributes attrs;
  attrs.set("perm", perm);
  return add("Transpose", label, {input}, std::move(attrs), output);
}

std::string NodeExpansion::cast(const std::string& label, const std::string& input, DType to,
                                const std::string& output) {
  Attributes attrs;
  attrs.set("to", static_cast<int64_t>(onnx_elem_type(to)));
  return add("Cast", label, {input}, std::move(attrs), output);
}

const std::string& optional_name(const std::vector<std::string>& names, size_t i) {
  static const std::string none;
  return i < names.size() ? names[i] : none;
}

}  // namespace nee
