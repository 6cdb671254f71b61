#pragma once
#include <array>
#include <cstdint>

#include "core/workload.h"

namespace nee {

// The pool2d family: ONNX MaxPool and AveragePool over NCHW f32 tensors with 2-D
// windows, and GlobalMaxPool / GlobalAveragePool as a pool whose window is the plane.
// Padding never wins a maximum; an average divides by the window's taps inside the
// input, or with count_include_pad by its taps inside the padded input.
enum class PoolKind { max, average };

struct Pool2dAttrs {
  PoolKind kind = PoolKind::max;
  std::array<int64_t, 2> kernel{1, 1};     // H, W
  std::array<int64_t, 2> strides{1, 1};    // H, W
  std::array<int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
  std::array<int64_t, 2> dilations{1, 1};  // H, W
  bool count_include_pad = false;          // average only
  // kActivationBlock: X and Y channel-blocked ([N, C/16, H, W, 16], between blocked convs);
  // 0: NCHW.
  int64_t block = 0;
};

// X [N,C,H,W] (stored blocked where attrs.block says). ceil_mode only decides the output shape (sliding_output_size), so it is
// not part of the key: two nodes with the same output compute the same thing. Throws
// nee::Error naming the problem (a pad as wide as the dilated window would let a window
// hold padding only).
Workload make_pool2d_workload(const TensorType& x, const Pool2dAttrs& attrs, bool ceil_mode);
// The window is X's whole H x W plane; the output is [N,C,1,1]; with block 16 both are
// stored channel-blocked, as make_pool2d_workload's attrs.block says.
Workload make_global_pool2d_workload(const TensorType& x, PoolKind kind, int64_t block = 0);
Pool2dAttrs pool2d_attrs(const Workload& w);
// X and Y as NCHW shapes, whatever their stored layout.
TensorType pool2d_nchw_input(const Workload& w);
TensorType pool2d_nchw_output(const Workload& w);
// "NxCxHxW,kernel=KHxKW|global[,kind=...][,block=16]..." as `nee-tune --op pool2d --shape` reads it.
Workload pool2d_workload_from_shape(const std::string& text);
// KH * KW: the terms of each output's maximum or sum.
int64_t pool2d_window_size(const Workload& w);

}  // namespace nee
