#include "importer/onnx_attributes.h"

#include <fmt/format.h>

#include "core/error.h"
#include "runtime/onnx_tensor.h"

namespace nee {

Attributes attributes_from_onnx(const onnx::NodeProto& node, const std::string& what) {
  Attributes attrs;
  for (const onnx::AttributeProto& a : node.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::INT: attrs.set(a.name(), static_cast<int64_t>(a.i())); break;
      case onnx::AttributeProto::FLOAT: attrs.set(a.name(), a.f()); break;
      case onnx::AttributeProto::STRING: attrs.set(a.name(), a.s()); break;
      case onnx::AttributeProto::INTS:
        attrs.set(a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end()));
        break;
      case onnx::AttributeProto::FLOATS:
        attrs.set(a.name(), std::vector<float>(a.floats().begin(), a.floats().end()));
        break;
      case onnx::AttributeProto::STRINGS:
        attrs.set(a.name(), std::vector<std::string>(a.strings().begin(), a.strings().end()));
        break;
      case onnx::AttributeProto::TENSOR:
        attrs.set(a.name(), tensor_from_proto(a.t(), fmt::format("attribute '{}' of {}", a.name(), what)));
        break;
      default:
        throw Error(fmt::format("attribute '{}' of {} has type {}, which NEE does not support", a.name(),
                                what, onnx::AttributeProto::AttributeType_Name(a.type())));
    }
  }
  return attrs;
}

}  // namespace nee
