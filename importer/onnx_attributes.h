#pragma once
#include <string>

#include <onnx/onnx_pb.h>

#include "runtime/attributes.h"

namespace nee {

// A node's ONNX attributes as typed Attributes; graph, sparse and string-list attributes
// are rejected with an error naming `what` (the node).
Attributes attributes_from_onnx(const onnx::NodeProto& node, const std::string& what);

}  // namespace nee
