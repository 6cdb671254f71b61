#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

void check_pool_input(const TensorType& x) {
  if (x.shape.size() < 3 || x.shape.size() > 5) {
    throw Error(fmt::format("X {} must be N x C x D1 [x D2 [x D3]]", x.to_string()));
  }
}

// Output type of MaxPool / AveragePool; stores the window with auto_pad resolved into
// explicit pads and ceil_mode as 0/1, which is all the kernels read.
TensorType import_window_pool(Node& node, const TensorType& x) {
  check_pool_input(x);
  const size_t rank = x.shape.size() - 2;
  const std::vector<int64_t> input(x.shape.begin() + 2, x.shape.end());
  WindowGeometry window = read_window_attributes(node.attrs, rank);
  const AutoPad auto_pad = parse_auto_pad(node.attrs.get_string("auto_pad", "NOTSET"));
  apply_auto_pad(auto_pad, input, window);
  // ONNX computes SAME and VALID extents with ceil, so ceil_mode matters only for NOTSET.
  const bool ceil_mode = auto_pad == AutoPad::not_set && node.attrs.get_int("ceil_mode", 0) != 0;
  TensorType out{x.dtype, {x.shape[0], x.shape[1]}};
  for (size_t d = 0; d < rank; ++d) {
    if (window.pads_begin[d] >= dilated_extent(window.kernel[d], window.dilations[d]) ||
        window.pads_end[d] >= dilated_extent(window.kernel[d], window.dilations[d])) {
      throw Error(fmt::format("pads [{}] must be smaller than the (dilated) kernel [{}], or a window "
                              "could hold padding only", fmt::join(window.onnx_pads(), ","),
                              fmt::join(window.kernel, ",")));
    }
    const int64_t size = sliding_output_size(input[d], window.kernel[d], window.strides[d],
                                             window.dilations[d], window.pads_begin[d],
                                             window.pads_end[d], ceil_mode);
    if (size < 1) {
      throw Error(fmt::format("kernel [{}] does not fit padded input {} along spatial dim {}",
                              fmt::join(window.kernel, ","), x.to_string(), d));
    }
    out.shape.push_back(size);
  }
  node.attrs.set("kernel_shape", window.kernel);
  node.attrs.set("strides", window.strides);
  node.attrs.set("dilations", window.dilations);
  node.attrs.set("pads", window.onnx_pads());
  node.attrs.set("ceil_mode", int64_t{ceil_mode});
  node.attrs.erase("auto_pad");
  return out;
}

}  // namespace

// The optional second output, Indices, holds each maximum's flat index into X
// (N x C x spatial), row-major or, with storage_order 1, column-major within the
// spatial dims.
std::vector<TensorType> import_max_pool(const ImportContext& ctx, Node& node) {
  const bool has_indices = node.outputs.size() == 2;
  expect_arity(node, 1, 1, has_indices ? 2 : 1);
  const TensorType& x = ctx.opset >= 12 ? input_type(ctx, node, 0, {DType::f32, DType::i8, DType::u8})
                                        : input_type(ctx, node, 0, {DType::f32});
  const int64_t storage_order = node.attrs.get_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) {
    throw Error(fmt::format("storage_order {} must be 0 (row major) or 1 (column major)", storage_order));
  }
  node.attrs.set("storage_order", storage_order);
  TensorType y = import_window_pool(node, x);
  if (!has_indices) return {y};
  return {y, TensorType{DType::i64, y.shape}};
}

// count_include_pad 1 divides by the window's size within the padded input; 0 by the
// number of window elements inside X.
std::vector<TensorType> import_average_pool(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  node.attrs.set("count_include_pad", int64_t{node.attrs.get_int("count_include_pad", 0) != 0});
  return {import_window_pool(node, x)};
}

std::vector<TensorType> import_global_pool(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  if (x.shape.size() < 3) throw Error(fmt::format("X {} must be N x C x D1 x ...", x.to_string()));
  TensorType y = x;
  std::fill(y.shape.begin() + 2, y.shape.end(), 1);
  return {y};
}

}  // namespace nee
