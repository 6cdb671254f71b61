#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// numpy matmul: a 1-D A is a row [1,K] and a 1-D B a column [K,1], and the promoted dim
// is dropped from the result; batch dims broadcast.
std::vector<TensorType> import_matmul(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::f32});
  const TensorType& b = input_type(ctx, node, 1, {DType::f32});
  if (a.shape.empty() || b.shape.empty()) throw Error("MatMul operands must have rank >= 1");
  std::vector<int64_t> sa = a.shape, sb = b.shape;
  if (a.shape.size() == 1) sa.insert(sa.begin(), 1);
  if (b.shape.size() == 1) sb.push_back(1);
  const int64_t k_a = sa.back(), k_b = sb[sb.size() - 2];
  if (k_a != k_b) {
    throw Error(fmt::format("inner dimensions differ: {} x {} (K {} vs {})", a.to_string(),
                            b.to_string(), k_a, k_b));
  }
  std::vector<int64_t> shape = broadcast_shapes({sa.begin(), sa.end() - 2}, {sb.begin(), sb.end() - 2});
  if (a.shape.size() > 1) shape.push_back(sa[sa.size() - 2]);
  if (b.shape.size() > 1) shape.push_back(sb.back());
  return {TensorType{DType::f32, shape}};
}

std::vector<TensorType> import_gemm(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::f32});
  const TensorType& b = input_type(ctx, node, 1, {DType::f32});
  if (a.shape.size() != 2 || b.shape.size() != 2) {
    throw Error(fmt::format("Gemm operands must have rank 2, got {} and {}", a.to_string(), b.to_string()));
  }
  const bool trans_a = node.attrs.get_int("transA", 0) != 0;
  const bool trans_b = node.attrs.get_int("transB", 0) != 0;
  node.attrs.get_float("alpha", 1.0f);  // type-checks the attribute when present
  node.attrs.get_float("beta", 1.0f);
  const int64_t m = trans_a ? a.shape[1] : a.shape[0], k_a = trans_a ? a.shape[0] : a.shape[1];
  const int64_t k_b = trans_b ? b.shape[1] : b.shape[0], n = trans_b ? b.shape[0] : b.shape[1];
  if (k_a != k_b) {
    throw Error(fmt::format("inner dimensions differ: {} x {} with transA={} transB={} (K {} vs {})",
                            a.to_string(), b.to_string(), trans_a, trans_b, k_a, k_b));
  }
  const std::vector<int64_t> shape = {m, n};
  if (node.inputs.size() == 3 && !node.inputs[2].empty()) {
    const TensorType& c = input_type(ctx, node, 2, {DType::f32});
    if (c.shape.size() > 2 || broadcast_shapes(shape, c.shape) != shape) {
      throw Error(fmt::format("C {} does not broadcast to the product's shape [{}]", c.to_string(),
                              fmt::join(shape, ",")));
    }
  }
  return {TensorType{DType::f32, shape}};
}

}  // namespace nee
