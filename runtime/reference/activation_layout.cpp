#include "core/activation_layout.h"

#include "core/error.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// NeeLayout: a copy between NCHW and channel-blocked activations.
ReferenceFn make_reference_nee_layout(const Graph& graph, const Node& node) {
  const std::string to = node.attrs.get_string("to");
  if (to != "nchw" && to != "nchw16c") throw Error("NeeLayout '" + node.name + "' has unknown layout '" + to + "'");
  const bool to_blocked = to == "nchw16c";
  const std::vector<int64_t> nchw = to_blocked ? graph.type_of(node.inputs[0]).shape
                                               : graph.type_of(node.outputs[0]).shape;
  return [to_blocked, nchw](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    if (to_blocked) {
      pack_blocked_activations(in[0]->data_as<float>(), nchw, out[0]->data_as<float>());
    } else {
      unpack_blocked_activations(in[0]->data_as<float>(), nchw, out[0]->data_as<float>());
    }
  };
}

}  // namespace nee
