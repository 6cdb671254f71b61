#pragma once
#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "onnx_model_builder.h"
#include "runtime/tensor.h"

namespace nee::test {

// What the operator tests do with a built model: import it and run it on the reference
// provider, or import it and read the error.

std::map<std::string, Tensor> run_model(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs);

// The one output of a model that has one (a test failure otherwise).
Tensor run_single_output(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs);

// The import's error message; empty, and a test failure, when the import succeeds.
std::string import_error(const OnnxModelBuilder& model);

void set_string_attr(onnx::NodeProto& node, const std::string& name, const std::string& value);

}  // namespace nee::test
