#include <array>
#include <cstring>

#include "core/depth_space_move.h"
#include "core/dtype.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Trilu: keeps element (i, j) of each trailing matrix where j - i >= k (upper) or
// j - i <= k (lower), zero elsewhere; k from the optional scalar input, read per call.
ReferenceFn make_reference_trilu(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const bool upper = node.attrs.get_int("upper") != 0;
  const int64_t rows = type.shape[type.shape.size() - 2], cols = type.shape.back();
  const size_t size = dtype_size(type.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const int64_t k = in.size() > 1 && in[1] ? *in[1]->data_as<int64_t>() : 0;
    const auto* x = static_cast<const uint8_t*>(in[0]->data());
    auto* y = static_cast<uint8_t*>(out[0]->data());
    for (int64_t e = 0, n = out[0]->elements(); e < n; ++e) {
      const int64_t i = (e / cols) % rows, j = e % cols;
      const bool keep = upper ? j - i >= k : j - i <= k;
      if (keep) {
        std::memcpy(y + e * size, x + e * size, size);
      } else {
        std::memset(y + e * size, 0, size);
      }
    }
  };
}

// EyeLike: one where j - i == k, zero elsewhere, in the output's dtype.
ReferenceFn make_reference_eye_like(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.outputs[0]);
  const int64_t k = node.attrs.get_int("k");
  const int64_t cols = type.shape[1];
  const std::vector<uint8_t> one = element_bytes(1.0, type.dtype), zero = element_bytes(0.0, type.dtype);
  return [=](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    auto* y = static_cast<uint8_t*>(out[0]->data());
    for (int64_t e = 0, n = out[0]->elements(); e < n; ++e) {
      const std::vector<uint8_t>& value = e % cols - e / cols == k ? one : zero;
      std::memcpy(y + e * one.size(), value.data(), one.size());
    }
  };
}

// DepthToSpace and SpaceToDepth are a reshape to six dims, a transpose and a reshape
// back, as the spec defines them: one strided copy over the six-dim view.
ReferenceFn make_reference_depth_space(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const DepthSpaceMove move = depth_space_move(node.op == "DepthToSpace", node.attrs.get_string("mode", "DCR"),
                                               node.attrs.get_int("blocksize"), x.shape);
  const std::vector<int64_t>& view = move.view;
  std::array<size_t, 6> perm{};
  for (size_t d = 0; d < 6; ++d) perm[d] = static_cast<size_t>(move.perm[d]);
  const std::vector<int64_t> view_strides = dense_strides(view);
  std::vector<int64_t> shape(6), strides(6);
  for (size_t d = 0; d < 6; ++d) {
    shape[d] = view[perm[d]];
    strides[d] = view_strides[perm[d]];
  }
  const size_t size = dtype_size(x.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()), size, shape,
                 strides, 0);
  };
}

}  // namespace nee
