#include "runtime/reference/reference_kernel.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

const std::unordered_map<std::string, ReferenceFactory>& reference_kernels() {
  static const std::unordered_map<std::string, ReferenceFactory> table = {
      {"Add", make_reference_add},
      {"Sub", make_reference_sub},
      {"Mul", make_reference_mul},
      {"Div", make_reference_div},
      {"Relu", make_reference_relu},
      {"Sigmoid", make_reference_sigmoid},
      {"Tanh", make_reference_tanh},
      {"MatMul", make_reference_matmul},
      {"Gemm", make_reference_gemm},
      {"NeeMatMul", make_reference_nee_matmul},
      {"Reshape", make_reference_view},
      {"Flatten", make_reference_view},
      {"Identity", make_reference_view},
      {"Softmax", make_reference_softmax},
      {"Transpose", make_reference_transpose},
      {"Concat", make_reference_concat},
  };
  return table;
}

}  // namespace nee
