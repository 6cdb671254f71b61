#include <cstring>

#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// The input index that output index `o` of one dim reads, or -1 for the fill value.
int64_t source_index(int64_t o, int64_t begin, int64_t dim, const std::string& mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < dim) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : dim - 1;
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);  // reflect: ... 2 1 [0 1 2 3] 2 1 0 1 ...
  i %= period;
  if (i < 0) i += period;
  return i < dim ? i : period - i;
}

}  // namespace

// Pads by the importer-normalized `pads` (begins, then ends; negative crops) in `mode`.
// The constant fill is input 2 when given, else the pre-opset-11 `value` attribute, else 0.
ReferenceFn make_reference_pad(const Graph& graph, const Node& node) {
  const TensorType in_type = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  const std::string mode = node.attrs.get_string("mode");
  const size_t rank = out_shape.size();
  const std::vector<uint8_t> attr_fill = element_bytes(node.attrs.get_float("value", 0.0f), in_type.dtype);
  // Per dim and output index: the input index read, or -1 for the fill value.
  std::vector<std::vector<int64_t>> sources(rank);
  for (size_t d = 0; d < rank; ++d) {
    for (int64_t o = 0; o < out_shape[d]; ++o) sources[d].push_back(source_index(o, pads[d], in_type.shape[d], mode));
  }
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in_type.shape[d];
  return [sources, in_strides, out_shape, attr_fill, rank](const std::vector<const Tensor*>& in,
                                                           const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(in[0]->dtype());
    const uint8_t* fill = in.size() > 2 && in[2] ? static_cast<const uint8_t*>(in[2]->data()) : attr_fill.data();
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    std::vector<int64_t> index(rank, 0);
    for (int64_t o = 0, n = out[0]->elements(); o < n; ++o) {
      int64_t source = 0;
      for (size_t d = 0; d < rank && source >= 0; ++d) {
        const int64_t i = sources[d][index[d]];
        source = i < 0 ? -1 : source + i * in_strides[d];
      }
      std::memcpy(dst + o * size, source < 0 ? fill : src + source * size, size);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < out_shape[d]) break;
        index[d] = 0;
      }
    }
  };
}

}  // namespace nee
