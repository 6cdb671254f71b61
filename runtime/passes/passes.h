#pragma once
#include "runtime/graph.h"

namespace nee {

// Graph rewrites run by Session::prepare() and by the tuner before it extracts workloads,
// so that both see the same fused nodes. Each pass lives in its own file.
//
// The internal op "NeeMatMul" computes relu?(alpha * op(A) x op(B) + beta * C):
// attributes trans_a, trans_b, relu (ints), alpha, beta (floats); inputs A, B and an
// optional C that broadcasts to the product's shape.
//
// The internal op "NeeConv" computes act(conv(X, W) + B + R): Conv's attributes
// (explicit kernel_shape, strides, dilations, pads, group) plus bias and residual (ints:
// whether B and R are inputs), activation ("none", "relu", "clip"), clip_min and
// clip_max (floats). Inputs X, W, then B if bias = 1, then R if residual = 1.
//
// The internal op "NeeLayerNorm" computes ONNX LayerNormalization's Y only:
// (X - mean) / sqrt(var + epsilon) * Scale + B over the dims from `axis` on: attributes
// axis (int, non-negative) and epsilon (float); inputs X, Scale and an optional B, both
// broadcasting to X without growing it.

void remove_identity(Graph& graph);
// Conv (2-D, f32) -> NeeConv, then folds into it, when each is the sole consumer of the
// NeeConv's output: a BatchNormalization with constant parameters (constant weights
// needed; new constant weights and bias), an Add of a same-shape tensor (residual), and
// a Relu or a Clip with constant bounds.
void fuse_conv(Graph& graph);
void fuse_gemm(Graph& graph);          // Gemm -> NeeMatMul
void fuse_matmul_add(Graph& graph);    // MatMul then Add of a broadcastable bias -> NeeMatMul with C
void convert_matmul(Graph& graph);     // remaining MatMul with rank >= 2 operands -> NeeMatMul
void fuse_matmul_relu(Graph& graph);   // NeeMatMul then Relu -> NeeMatMul relu=1
// LayerNormalization with only its Y output -> NeeLayerNorm; and the chain exporters emit
// for torch.nn.LayerNorm before opset 17 -> NeeLayerNorm: ReduceMean(X) over trailing
// axes, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, then optionally Mul Scale and Add
// B, each intermediate read only inside the chain.
void fuse_layer_norm(Graph& graph);

// All of the above, in the order listed. convert_matmul runs before fuse_matmul_relu so
// that a MatMul followed directly by Relu is fused as well.
void optimize_graph(Graph& graph);

}  // namespace nee
