#pragma once
#include <cstdint>
#include <string>

#include "core/workload.h"
#include "runtime/tensor.h"

namespace nee {

// ONNX TensorProto .pb files, the format of the ONNX backend tests
// (test_data_set_0/input_0.pb, output_0.pb). Errors name the file.
Tensor read_tensor_pb(const std::string& path, std::string* name = nullptr);
void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name = "");

// Deterministic random data for checks and benchmarks, never all zeros: floats uniform
// in [-1, 1], signed integers in [-10, 10], unsigned in [0, 10], booleans 0 or 1.
Tensor random_tensor(const TensorType& type, uint64_t seed);

}  // namespace nee
