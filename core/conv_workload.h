#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "core/workload.h"

namespace nee {

// The conv2d family: ONNX Conv over NCHW f32 tensors with 2-D windows, with an optional
// fused epilogue applied in this order: bias (per output channel), a residual tensor of
// the output's shape added, then an activation.
// out = act(conv(X, W) + bias + residual); silu is x * sigmoid(x), gelu the Erf-based
// x * 0.5 * (1 + erf(x / sqrt(2))).
enum class ConvActivation { none, relu, clip, silu, gelu };

// The attribute text ("none", "relu", "clip", "silu", "gelu"); an unknown name throws
// nee::Error naming it.
const char* to_string(ConvActivation a);
ConvActivation conv_activation_from_string(const std::string& name);

struct Conv2dAttrs {
  std::array<int64_t, 2> strides{1, 1};       // H, W
  std::array<int64_t, 4> pads{0, 0, 0, 0};    // top, left, bottom, right
  std::array<int64_t, 2> dilations{1, 1};     // H, W
  int64_t group = 1;
  ConvActivation activation = ConvActivation::none;
  double clip_min = 0.0, clip_max = 0.0;      // used when activation is clip
};

// Inputs: X [N,C,H,W], W [O, C/group, KH, KW], optional bias [O], optional residual
// (the output's shape). Validates every shape and computes the output's; throws
// nee::Error naming the mismatch.
Workload make_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType* bias,
                              const TensorType* residual, const Conv2dAttrs& attrs);
Conv2dAttrs conv2d_attrs(const Workload& w);
bool conv2d_has_bias(const Workload& w);
bool conv2d_has_residual(const Workload& w);
// C/group * KH * KW: the length of each output's dot product.
int64_t conv2d_reduction_length(const Workload& w);
double conv2d_flops(const Workload& w);

// Parses the command line's "NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG]" (stride, symmetric pad,
// dilation, group; defaults 1, 0, 1, 1) into a conv2d workload without bias or epilogue.
Workload conv2d_workload_from_shape(const std::string& shape);

}  // namespace nee
