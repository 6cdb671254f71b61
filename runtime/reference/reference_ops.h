#pragma once
#include "runtime/reference/reference_kernel.h"

namespace nee {

// Factories of the reference kernels, one per op; each file holds an op family.
ReferenceFn make_reference_add(const Graph&, const Node&);      // elementwise_binary.cpp
ReferenceFn make_reference_sub(const Graph&, const Node&);
ReferenceFn make_reference_mul(const Graph&, const Node&);
ReferenceFn make_reference_div(const Graph&, const Node&);
ReferenceFn make_reference_relu(const Graph&, const Node&);     // elementwise_unary.cpp
ReferenceFn make_reference_sigmoid(const Graph&, const Node&);
ReferenceFn make_reference_tanh(const Graph&, const Node&);
ReferenceFn make_reference_matmul(const Graph&, const Node&);   // matmul.cpp
ReferenceFn make_reference_gemm(const Graph&, const Node&);
ReferenceFn make_reference_nee_matmul(const Graph&, const Node&);
ReferenceFn make_reference_view(const Graph&, const Node&);     // view.cpp: Reshape, Flatten, Identity
ReferenceFn make_reference_softmax(const Graph&, const Node&);  // softmax.cpp
ReferenceFn make_reference_transpose(const Graph&, const Node&);  // transpose.cpp
ReferenceFn make_reference_concat(const Graph&, const Node&);   // concat.cpp

}  // namespace nee
