#include "onnx_model_builder.h"

#include <algorithm>
#include <cctype>

#include "runtime/onnx_tensor.h"

namespace nee::test {

OnnxModelBuilder::OnnxModelBuilder(int64_t opset) {
  model_.set_ir_version(8);
  auto* op = model_.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxModelBuilder& OnnxModelBuilder::input(const std::string& name, int32_t elem_type,
                                          const std::vector<std::string>& dims) {
  auto* info = model_.mutable_graph()->add_input();
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(c); })) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::input(const std::string& name, const std::vector<int64_t>& dims) {
  std::vector<std::string> text;
  for (int64_t d : dims) text.push_back(std::to_string(d));
  return input(name, onnx::TensorProto::FLOAT, text);
}

OnnxModelBuilder& OnnxModelBuilder::output(const std::string& name, int32_t elem_type) {
  auto* info = model_.mutable_graph()->add_output();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::output(const std::string& name, const std::vector<int64_t>& dims) {
  output(name);
  auto* shape = model_.mutable_graph()->mutable_output()->rbegin()->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::initializer(const std::string& name, const Tensor& value) {
  *model_.mutable_graph()->add_initializer() = tensor_to_proto(value, name);
  return *this;
}

onnx::TensorProto& OnnxModelBuilder::raw_initializer() { return *model_.mutable_graph()->add_initializer(); }

onnx::NodeProto& OnnxModelBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs, const std::string& name) {
  auto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return *node;
}

std::string OnnxModelBuilder::bytes() const { return model_.SerializeAsString(); }

void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, float value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : value) a->add_ints(v);
}

void set_string_attr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const Tensor& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = tensor_to_proto(value, name);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const OnnxModelBuilder& body) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body.model().graph();
}

Tensor make_f32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  Tensor t(DType::f32, shape);
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

Tensor make_i64(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  Tensor t(DType::i64, shape);
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  return t;
}

Tensor make_i32(const std::vector<int64_t>& shape, const std::vector<int32_t>& values) {
  Tensor t(DType::i32, shape);
  std::copy(values.begin(), values.end(), t.data_as<int32_t>());
  return t;
}

Tensor make_f64(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  Tensor t(DType::f64, shape);
  std::copy(values.begin(), values.end(), t.data_as<double>());
  return t;
}

std::vector<float> values_of(const Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.elements());
}

std::vector<int64_t> ints_of(const Tensor& t) {
  return std::vector<int64_t>(t.data_as<int64_t>(), t.data_as<int64_t>() + t.elements());
}

std::vector<double> doubles_of(const Tensor& t) {
  return std::vector<double>(t.data_as<double>(), t.data_as<double>() + t.elements());
}

}  // namespace nee::test
