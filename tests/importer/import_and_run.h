#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

// Each of `actual` within `tolerance` of `expected`, one failure per element that is not.
void expect_near_all(const std::vector<float>& actual, const std::vector<float>& expected, float tolerance = 1e-5f);

// An f32 tensor of uniform random values in [-bound, bound).
Tensor random_f32(const std::vector<int64_t>& shape, uint32_t seed, float bound = 1.0f);

// The dims of `shape` as the texts a model input takes.
std::vector<std::string> dims_text(const std::vector<int64_t>& shape);

}  // namespace nee::test
