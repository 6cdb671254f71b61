// MaxUnpool (opsets 9, 11): X's values scattered to the flat positions I gives, zeros elsewhere.
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "core/error.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Index k of I addresses the unpooled tensor (attribute unpooled_shape) flattened; it is
// decomposed there and placed at the same coordinates of Y, which output_shape may have
// made larger. Where indices repeat, the later element of X wins (ONNX's reference writes
// in order).
ReferenceFn make_reference_max_unpool(const Graph& graph, const Node& node) {
  const std::vector<int64_t> unpooled = node.attrs.get_ints("unpooled_shape");
  const std::vector<int64_t> unpooled_strides = dense_strides(unpooled);
  const std::vector<int64_t> output_strides = dense_strides(graph.type_of(node.outputs[0]).shape);
  int64_t unpooled_elements = 1;
  for (int64_t extent : unpooled) unpooled_elements *= extent;
  return [unpooled_strides, output_strides, unpooled_elements](const std::vector<const Tensor*>& in,
                                                               const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(in[0]->dtype());
    const auto* x = static_cast<const uint8_t*>(in[0]->data());
    const int64_t* indices = in[1]->data_as<int64_t>();
    auto* y = static_cast<uint8_t*>(out[0]->data());
    std::memset(y, 0, out[0]->bytes());
    for (int64_t i = 0, n = in[0]->elements(); i < n; ++i) {
      int64_t rest = indices[i];
      if (rest < 0 || rest >= unpooled_elements) {
        throw Error(fmt::format("MaxUnpool index {} (element {} of I) is outside the {} unpooled elements", rest, i,
                                unpooled_elements));
      }
      int64_t target = 0;
      for (size_t d = 0; d < unpooled_strides.size(); ++d) {
        target += rest / unpooled_strides[d] * output_strides[d];
        rest %= unpooled_strides[d];
      }
      std::memcpy(y + target * size, x + i * size, size);
    }
  };
}

}  // namespace nee
