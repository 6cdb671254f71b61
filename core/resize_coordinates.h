#pragma once
#include <cstdint>
#include <string>

namespace nee {

// ONNX Resize's coordinate transformation: the input coordinate that output index x maps
// to along a dim of `in_dim` elements resized by `scale`, for every mode but
// tf_crop_and_resize (which also takes a region of interest). width = scale * in_dim,
// unrounded, as in ONNX's reference implementation. Written once for the reference
// kernel (Real = double) and the resize family's Halide algorithm (Real = a Float(64)
// Halide::Expr): the constants reach the arithmetic as Real, so an Expr keeps their 64
// bits, and both evaluate the same operations in the same order.
template <class Real>
Real resize_source_coordinate(const std::string& coordinates, const Real& x, double scale, int64_t in_dim) {
  const double width = scale * static_cast<double>(in_dim);
  const Real half(0.5);
  if (coordinates == "align_corners") {
    return width == 1 ? Real(0.0) : x * Real(static_cast<double>(in_dim - 1)) / Real(width - 1);
  }
  if (coordinates == "asymmetric") return x / Real(scale);
  if (coordinates == "tf_half_pixel_for_nn") return (x + half) / Real(scale);
  if (coordinates == "pytorch_half_pixel" && width == 1) return Real(-0.5);
  return (x + half) / Real(scale) - half;  // half_pixel, and pytorch_half_pixel's general case
}

}  // namespace nee
