#pragma once
#include "importer/op_importer.h"

namespace nee {

// One import function per operator; each file in ops/ holds an operator family.
std::vector<TensorType> import_matmul(const ImportContext&, Node&);     // ops/matmul.cpp
std::vector<TensorType> import_gemm(const ImportContext&, Node&);
std::vector<TensorType> import_binary_arithmetic(const ImportContext&, Node&);  // ops/elementwise.cpp: Add Sub Mul Div
std::vector<TensorType> import_relu(const ImportContext&, Node&);
std::vector<TensorType> import_float_unary(const ImportContext&, Node&);  // Sigmoid Tanh
std::vector<TensorType> import_identity(const ImportContext&, Node&);   // ops/shape.cpp
std::vector<TensorType> import_flatten(const ImportContext&, Node&);
std::vector<TensorType> import_reshape(const ImportContext&, Node&);
std::vector<TensorType> import_transpose(const ImportContext&, Node&);
std::vector<TensorType> import_concat(const ImportContext&, Node&);
std::vector<TensorType> import_softmax(const ImportContext&, Node&);    // ops/softmax.cpp

}  // namespace nee
