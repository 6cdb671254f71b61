#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "runtime/tensor.h"

namespace nee {

// A TensorProto's value. Data stored outside the model is read relative to `folder` (the
// model's; nullopt for a model read from memory, which then may not use external data).
// `what` names the tensor in errors.
Tensor load_tensor(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                   const std::string& what);

// The value of a Constant node (any of its value attributes).
Tensor constant_node_value(const onnx::NodeProto& proto, const std::optional<std::filesystem::path>& folder,
                           const std::string& what);

}  // namespace nee
