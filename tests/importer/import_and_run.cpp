#include "import_and_run.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

namespace nee::test {

std::map<std::string, Tensor> run_model(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs) {
  Session session(import_onnx_bytes(model.bytes()), {}, SessionOptions{optimize_graph});
  return session.run(inputs);
}

Tensor run_single_output(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs) {
  auto outputs = run_model(model, inputs);
  EXPECT_EQ(outputs.size(), 1u);
  return outputs.begin()->second;
}

std::string import_error(const OnnxModelBuilder& model) {
  try {
    import_onnx_bytes(model.bytes());
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "import succeeded";
  return "";
}

void set_string_attr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s(value);
}

}  // namespace nee::test
