#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "runtime/tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

// A TensorProto's value. Data stored outside the model is read relative to `folder` (the
// model's; nullopt for a model read from memory, which then may not use external data).
// The data present (raw_data or typed field length, external file length) is compared
// with the declared dims before anything is allocated or mapped, and a tensor over
// `max_bytes` is refused. `what` names the tensor in errors.
Tensor load_tensor(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                   const std::string& what, int64_t max_bytes = kMaxTensorBytes);

// The value of a Constant node (any of its value attributes), its bytes reserved in
// `weights` before it is read.
Tensor constant_node_value(const onnx::NodeProto& proto, const std::optional<std::filesystem::path>& folder,
                           const std::string& what, ByteBudget& weights, int64_t max_bytes = kMaxTensorBytes);

}  // namespace nee
