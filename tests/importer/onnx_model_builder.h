#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "runtime/tensor.h"

namespace nee::test {

// Builds small ONNX models in C++ so the tests need no Python. Dims given as strings
// that are not numbers become symbolic (dim_param).
class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int64_t opset = 17);

  OnnxModelBuilder& input(const std::string& name, int32_t elem_type, const std::vector<std::string>& dims);
  OnnxModelBuilder& input(const std::string& name, const std::vector<int64_t>& dims);  // FLOAT
  OnnxModelBuilder& output(const std::string& name, int32_t elem_type = onnx::TensorProto::FLOAT);
  OnnxModelBuilder& output(const std::string& name, const std::vector<int64_t>& dims);  // FLOAT
  OnnxModelBuilder& initializer(const std::string& name, const Tensor& value);
  onnx::TensorProto& raw_initializer();  // for hand-crafted bad initializers
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& model() { return model_; }
  const onnx::ModelProto& model() const { return model_; }
  std::string bytes() const;

 private:
  onnx::ModelProto model_;
};

void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value);
void set_attr(onnx::NodeProto& node, const std::string& name, float value);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& value);
void set_string_attr(onnx::NodeProto& node, const std::string& name, const std::string& value);
void set_attr(onnx::NodeProto& node, const std::string& name, const Tensor& value);
// A subgraph (If's branches, Loop's and Scan's body): the builder's graph.
void set_attr(onnx::NodeProto& node, const std::string& name, const OnnxModelBuilder& body);

Tensor make_f32(const std::vector<int64_t>& shape, const std::vector<float>& values);
Tensor make_i64(const std::vector<int64_t>& shape, const std::vector<int64_t>& values);
Tensor make_i32(const std::vector<int64_t>& shape, const std::vector<int32_t>& values);
Tensor make_f64(const std::vector<int64_t>& shape, const std::vector<double>& values);
std::vector<float> values_of(const Tensor& t);      // an f32 tensor's elements
std::vector<int64_t> ints_of(const Tensor& t);      // an i64 tensor's
std::vector<double> doubles_of(const Tensor& t);    // an f64 tensor's

}  // namespace nee::test
