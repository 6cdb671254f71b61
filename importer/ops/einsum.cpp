#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/reference/einsum_equation.h"

namespace nee {

// Einsum (opset 12): one or more operands of one numeric dtype; the output's dims are
// the equation's output labels.
std::vector<TensorType> import_einsum(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, std::max<size_t>(1, node.inputs.size()), 1);
  std::vector<std::vector<int64_t>> shapes;
  DType dtype = DType::f32;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorType& t = input_type(ctx, node, i, {DType::f32, DType::f64, DType::i32, DType::i64, DType::u32,
                                                    DType::u64});
    if (i == 0) dtype = t.dtype;
    if (t.dtype != dtype) throw Error(fmt::format("operands have different dtypes: {} and {}", to_string(dtype), t.to_string()));
    shapes.push_back(t.shape);
  }
  const EinsumEquation eq = parse_einsum(node.attrs.get_string("equation"), shapes);
  TensorType out{dtype, {}};
  for (int label : eq.output_labels) out.shape.push_back(eq.label_sizes[static_cast<size_t>(label)]);
  return {out};
}

}  // namespace nee
