#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/matmul_weight_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// The sums of an integer product stay within i32 (255 * 128 * K below 2^31) and its column
// sums are integers an f32 holds exactly (128 * K below 2^24).
constexpr int64_t kMostIntegerProductRows = 65536;

// B [K, N] as signed bytes (the integers less their zero points) with a multiplier per
// column (its scale, times A's where the product's A is scaled), from the DequantizeLinear
// it came from: nullopt unless its scale is one value or one per column, every integer less
// its zero point fits in a signed byte, and K is a multiple of 4 up to
// kMostIntegerProductRows.
std::optional<IntegerMatrix> integer_b(const DequantizedOrigin& origin, float a_scale) {
  IntegerMatrix b;
  b.rows = origin.x.shape()[0];
  b.columns = origin.x.shape()[1];
  const bool per_tensor = origin.block_size == 0 && origin.scale.elements() == 1;
  if (!per_tensor && (origin.block_size != 0 || origin.axis != 1)) return std::nullopt;
  if (b.rows % 4 != 0 || b.rows > kMostIntegerProductRows) return std::nullopt;
  const bool has_zero_point = !origin.zero_point.empty_storage();
  b.values.resize(static_cast<size_t>(b.rows * b.columns));
  for (int64_t i = 0; i < b.rows * b.columns; ++i) {
    const int64_t p = per_tensor ? 0 : i % b.columns;
    const int v = byte_integer_at(origin.x, i) - (has_zero_point ? byte_integer_at(origin.zero_point, p) : 0);
    if (v < -128 || v > 127) return std::nullopt;
    b.values[i] = static_cast<int8_t>(v);
  }
  b.multipliers.resize(static_cast<size_t>(b.columns));
  for (int64_t n = 0; n < b.columns; ++n) {
    b.multipliers[n] = origin.scale.data_as<float>()[per_tensor ? 0 : n] * a_scale;
  }
  return b;
}

// A's quantized origin, directly or through Reshapes (fold_matmul_batch's view of
// [1, M, K] as [M, K]), whose x, scale and zero point the graph still holds; null for none.
const QuantizedOrigin* origin_of(const Graph& graph, std::string a) {
  while (!graph.quantized_origin(a)) {
    const Node* reshape = graph.producer(a);
    if (!reshape || reshape->op != "Reshape") return nullptr;
    a = reshape->inputs[0];
  }
  const QuantizedOrigin* origin = graph.quantized_origin(a);
  const bool held = graph.has_value(origin->x) && (origin->scale.empty() || graph.has_value(origin->scale)) &&
                    (origin->zero.empty() || graph.has_value(origin->zero));
  return held ? origin : nullptr;
}

}  // namespace

void quantize_matmul_activations(Graph& graph) {
  std::vector<Node> added;
  std::vector<std::string> dropped;  // the products' former A and B
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeMatMul" || node.attrs.get_int("b_block", 0) != 0 || node.attrs.get_int("trans_a", 0) != 0 ||
        node.attrs.get_int("trans_b", 0) != 0) {
      continue;
    }
    const QuantizedOrigin* a = origin_of(graph, node.inputs[0]);
    const DequantizedOrigin* weights = graph.dequantized_origin(node.inputs[1]);
    if (!a || !weights || weights->x.shape().size() != 2) continue;
    const std::optional<float> a_scale = a->scale.empty() ? a->scale_value : scalar_f32_constant(graph, a->scale);
    if (a->scaled && !a_scale) continue;
    const std::optional<IntegerMatrix> b = integer_b(*weights, a->scaled ? *a_scale : 1.0f);
    if (!b) continue;
    const std::string base = node.inputs[1] + ".i8";
    const std::string scale =
        a->scale.empty() ? add_scalar_constant(graph, base + "/a_scale", a->scale_value) : a->scale;
    Tensor panels(DType::i8, integer_panel_shape(b->rows, b->columns));
    Tensor scales(DType::f32, integer_scales_shape(b->columns));
    pack_integer_panels(*b, panels.data_as<int8_t>(), scales.data_as<float>());
    std::string zero = a->zero;
    if (zero.empty()) {
      Tensor point(DType::u8, {});
      point.data_as<uint8_t>()[0] = static_cast<uint8_t>(a->zero_point);
      zero = add_named_constant(graph, base + "/a_zero", point);
    }
    // x in A's shape: through a Reshape of its own where A was a view.
    std::string x = a->x;
    const TensorType& a_type = graph.type_of(node.inputs[0]);
    if (graph.type_of(x).shape != a_type.shape) {
      added.push_back(reshape_view(graph, x, unique_value_name(graph, x + ".rows"), a_type.shape));
      x = added.back().outputs[0];
    }
    dropped.push_back(node.inputs[0]);
    dropped.push_back(node.inputs[1]);
    std::vector<std::string> inputs = {x, add_named_constant(graph, base + "/panels", panels),
                                       add_named_constant(graph, base + "/scales", scales), scale, zero};
    if (node.inputs.size() > 2) inputs.push_back(node.inputs[2]);
    node.inputs = inputs;
    const MatmulAttrs packed = with_packed_b({}, {b->rows, b->columns});
    node.attrs.set("b_block", packed.b_block);
    if (packed.b_columns != 0) node.attrs.set("b_columns", packed.b_columns);
    node.attrs.set("b_bits", int64_t{8});
    node.attrs.set("a_bits", int64_t{8});
  }
  for (Node& n : added) graph.add_node(std::move(n));
  for (const std::string& value : dropped) drop_unread_makers(graph, value);
  graph.sort_topologically();
}

}  // namespace nee
