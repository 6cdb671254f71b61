// Col2Im (opset 18): columns of image blocks, as im2col (PyTorch's Unfold) lays them out,
// put back into the image, overlapping blocks summed (PyTorch's Fold).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/sliding_window.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

// Inputs: the columns [N, C x prod(block_shape), L] and the constants image_shape and
// block_shape (one value per spatial dim); strides, dilations and pads as a Conv's, with
// L the number of block positions they give. Output: [N, C, image_shape...]. Stored for
// the kernel: image_shape and block_shape as attributes.
std::vector<TensorType> import_col2im(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& columns = input_type(ctx, node, 0, {DType::f32, DType::f64});
  const std::vector<int64_t> image = *constant_ints(ctx, node, 1, "image_shape");
  const std::vector<int64_t> block = *constant_ints(ctx, node, 2, "block_shape");
  if (image.empty() || block.size() != image.size()) {
    throw Error(fmt::format("image_shape [{}] and block_shape [{}] must have one value per spatial dim",
                            fmt::join(image, ","), fmt::join(block, ",")));
  }
  const WindowGeometry window = read_window_attributes(node.attrs, image.size(), block);
  int64_t block_size = 1, positions = 1;
  for (size_t d = 0; d < image.size(); ++d) {
    if (image[d] < 1 || block[d] < 1) {
      throw Error(fmt::format("image_shape [{}] and block_shape [{}] must be positive", fmt::join(image, ","),
                              fmt::join(block, ",")));
    }
    const int64_t along = sliding_output_size(image[d], block[d], window.strides[d], window.dilations[d],
                                              window.pads_begin[d], window.pads_end[d], false);
    if (along < 1) {
      throw Error(fmt::format("no block of [{}] fits spatial dim {} of the padded image", fmt::join(block, ","), d));
    }
    block_size *= block[d];
    positions *= along;
  }
  if (columns.shape.size() != 3 || columns.shape[1] % block_size != 0 || columns.shape[2] != positions) {
    throw Error(fmt::format("input is {}; it must be [N, C x {}, {}] for blocks [{}] of image [{}]",
                            columns.to_string(), block_size, positions, fmt::join(block, ","), fmt::join(image, ",")));
  }
  node.attrs.set("image_shape", image);
  node.attrs.set("block_shape", block);
  std::vector<int64_t> shape = {columns.shape[0], columns.shape[1] / block_size};
  shape.insert(shape.end(), image.begin(), image.end());
  return {TensorType{columns.dtype, shape}};
}

}  // namespace nee
