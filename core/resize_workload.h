#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.h"

namespace nee {

// The resize family: ONNX Resize (and Upsample, which the importer makes a Resize) of an
// f32 tensor of rank 2 or more along its two innermost dims (H, W), every other dim kept,
// by nearest or linear interpolation, with any coordinate transformation but
// tf_crop_and_resize. Output index x of a resized dim reads input coordinate
// c = resize_source_coordinate(x) (core/resize_coordinates.h) from its neighbours
// floor(c) and floor(c) + 1, clamped to the input; an integral c counts as ratio 1 from
// c - 1, as the ONNX reference prefers the left pixel. Nearest picks one neighbour by
// nearest_mode; linear weighs both, first along W, then along H. exclude_outside does
// not change these modes' results (a neighbour outside the input is clamped onto the
// other one, whose weight then carries the whole value either way), so it is not kept.
// Cubic interpolation and tf_crop_and_resize stay with the reference kernels. With
// `lanes`, the tensor is channel-blocked ([N, C/16, H, W, 16], between blocked convs): H
// and W are the two dims before the innermost, which holds the lanes and is kept.
struct ResizeAttrs {
  std::string mode;          // "nearest" or "linear"
  std::string coordinates;   // ONNX coordinate_transformation_mode
  std::string nearest_mode;  // round_prefer_floor, round_prefer_ceil, floor or ceil (nearest only)
  double scale_h = 1;        // ONNX's scale of H (its scales entry, or output / input extent)
  double scale_w = 1;        // and of W
  int64_t lanes = 0;         // the innermost dim's extent when it holds channel lanes; 0 when W is innermost
};

// Throws nee::Error naming the problem (a mode or coordinate transformation the family
// does not cover, a scale that is not positive, an outer dim that changes, an empty dim).
Workload make_resize_workload(const TensorType& input, const ResizeAttrs& attrs, const std::vector<int64_t>& output_shape);
ResizeAttrs resize_attrs(const Workload& w);

// `nee-tune --op resize --shape`: "DxDx...xD,size=HxW[,mode=linear|nearest][,coordinates=M]
// [,nearest_mode=M][,lanes=L]", the input shape and its output plane; the scales are the
// output's extents over the input's (e.g. a segmentation head's upsampling
// 1x21x28x28,size=224x224; a blocked U-Net's 1x4x16x16x16,size=32x32,lanes=16).
Workload resize_workload_from_shape(const std::string& text);

}  // namespace nee
