#include "importer/op_importer.h"
#include "importer/op_importers.h"

namespace nee {

const std::unordered_map<std::string, ImportFn>& op_importers() {
  static const std::unordered_map<std::string, ImportFn> table = {
      {"MatMul", import_matmul},
      {"Gemm", import_gemm},
      {"Add", import_binary_arithmetic},
      {"Sub", import_binary_arithmetic},
      {"Mul", import_binary_arithmetic},
      {"Div", import_binary_arithmetic},
      {"Relu", import_relu},
      {"Sigmoid", import_float_unary},
      {"Tanh", import_float_unary},
      {"Identity", import_identity},
      {"Flatten", import_flatten},
      {"Reshape", import_reshape},
      {"Transpose", import_transpose},
      {"Concat", import_concat},
      {"Softmax", import_softmax},
  };
  return table;
}

}  // namespace nee
