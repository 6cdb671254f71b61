// MaxUnpool (opsets 9, 11): MaxPool's values put back where its Indices say, zeros elsewhere.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

// Inputs: X [N, C, D1, ...], I (int64, X's shape: flat indices into the unpooled
// N x C x D1' x ... tensor, as MaxPool's Indices output gives them) and an optional
// output_shape (a constant). The unpooled extent per spatial dim is
// (D - 1) * stride + kernel - pad_begin - pad_end; with output_shape, pads are ignored
// and the unpooled tensor sits at the start of every dim of the (not smaller) output,
// as in ONNX's reference implementation. Stored for the kernel: `unpooled_shape`.
std::vector<TensorType> import_max_unpool(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::f64});
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64});
  if (x.shape.size() < 3) throw Error(fmt::format("X {} must be N x C x D1 x ...", x.to_string()));
  if (indices.shape != x.shape) {
    throw Error(fmt::format("I {} must have X {}'s shape", indices.to_string(), x.to_string()));
  }
  const size_t spatial_rank = x.shape.size() - 2;
  const WindowGeometry window = read_window_attributes(node.attrs, spatial_rank);
  const std::optional<std::vector<int64_t>> output_shape = constant_ints(ctx, node, 2, "output_shape");

  std::vector<int64_t> unpooled = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < spatial_rank; ++d) {
    const int64_t pad_begin = output_shape ? 0 : window.pads_begin[d];
    const int64_t pad_end = output_shape ? 0 : window.pads_end[d];
    const int64_t extent = transposed_output_size(x.shape[d + 2], window.kernel[d], window.strides[d], 1,
                                                  pad_begin, pad_end, 0);
    if (extent < 1) {
      throw Error(fmt::format("pads [{}] leave nothing of spatial dim {} (X {}, kernel_shape [{}])",
                              fmt::join(window.onnx_pads(), ","), d, x.to_string(), fmt::join(window.kernel, ",")));
    }
    unpooled.push_back(extent);
  }
  TensorType y{x.dtype, unpooled};
  if (output_shape) {
    if (output_shape->size() != x.shape.size()) {
      throw Error(fmt::format("output_shape [{}] must have one entry per dim of X {}", fmt::join(*output_shape, ","),
                              x.to_string()));
    }
    for (size_t d = 0; d < unpooled.size(); ++d) {
      if ((*output_shape)[d] < unpooled[d]) {
        throw Error(fmt::format("output_shape [{}] is smaller than the unpooled shape [{}]",
                                fmt::join(*output_shape, ","), fmt::join(unpooled, ",")));
      }
    }
    y.shape = *output_shape;
  }
  node.attrs.set("unpooled_shape", unpooled);
  return {y};
}

}  // namespace nee
