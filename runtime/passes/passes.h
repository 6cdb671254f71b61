#pragma once
#include "runtime/graph.h"

namespace nee {

// Graph rewrites run by Session::prepare() and by the tuner before it extracts workloads,
// so that both see the same fused nodes. Each pass lives in its own file.
//
// The internal op "NeeMatMul" computes relu?(alpha * op(A) x op(B) + beta * C):
// attributes trans_a, trans_b, relu (ints), alpha, beta (floats); inputs A, B and an
// optional C that broadcasts to the product's shape.

void remove_identity(Graph& graph);
void fuse_gemm(Graph& graph);          // Gemm -> NeeMatMul
void fuse_matmul_add(Graph& graph);    // MatMul then Add of a broadcastable bias -> NeeMatMul with C
void convert_matmul(Graph& graph);     // remaining MatMul with rank >= 2 operands -> NeeMatMul
void fuse_matmul_relu(Graph& graph);   // NeeMatMul then Relu -> NeeMatMul relu=1

// All of the above, in the order listed. convert_matmul runs before fuse_matmul_relu so
// that a MatMul followed directly by Relu is fused as well.
void optimize_graph(Graph& graph);

}  // namespace nee
