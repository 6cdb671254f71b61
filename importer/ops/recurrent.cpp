#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/recurrent_activation.h"

namespace nee {

namespace {

// Gates per layer (rows of W and R per hidden unit) and activations per direction.
struct CellShape {
  int64_t gates;
  std::vector<std::string> default_activations;
  size_t max_inputs, max_outputs;
};

CellShape cell_shape(const std::string& op) {
  if (op == "LSTM") return {4, {"Sigmoid", "Tanh", "Tanh"}, 8, 3};
  if (op == "GRU") return {3, {"Sigmoid", "Tanh"}, 6, 2};
  return {1, {"Tanh"}, 6, 2};  // RNN
}

void expect_shape(const ImportContext& ctx, const Node& node, size_t index, const std::vector<int64_t>& shape,
                  const char* role, std::initializer_list<DType> allowed) {
  const TensorType& t = input_type(ctx, node, index, allowed);
  if (t.shape != shape) {
    throw Error(fmt::format("{} ('{}') {} must have shape [{}]", role, node.inputs[index], t.to_string(),
                            fmt::join(shape, ",")));
  }
}

}  // namespace

// RNN, GRU and LSTM (opset 7, with opset 14's layout). X is seq x batch x input (layout 0)
// or batch x seq x input (layout 1); W, R, B, initial_h, initial_c and P hold one slice per
// direction. The importer stores direction, hidden_size, layout, the activations of every
// direction (defaults filled in) and the flags with their defaults, after checking every shape.
std::vector<TensorType> import_recurrent(const ImportContext& ctx, Node& node) {
  const CellShape cell = cell_shape(node.op);
  if (node.outputs.empty() || node.outputs.size() > cell.max_outputs) {
    throw Error(fmt::format("expects 1 to {} outputs, got {}", cell.max_outputs, node.outputs.size()));
  }
  expect_arity(node, 3, cell.max_inputs, node.outputs.size());
  const int64_t layout = node.attrs.get_int("layout", 0);
  if (layout != 0 && layout != 1) throw Error(fmt::format("layout is {}; it must be 0 or 1", layout));
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  if (x.shape.size() != 3) throw Error(fmt::format("X {} must have rank 3", x.to_string()));
  const int64_t seq = x.shape[layout ? 1 : 0], batch = x.shape[layout ? 0 : 1], input = x.shape[2];
  const std::string direction = node.attrs.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    throw Error(fmt::format("direction is '{}'; it must be forward, reverse or bidirectional", direction));
  }
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const TensorType& r = input_type(ctx, node, 2, {DType::f32});
  const int64_t hidden = node.attrs.get_int("hidden_size", r.shape.size() == 3 ? r.shape[2] : 0);
  if (hidden < 1) throw Error(fmt::format("hidden_size is {}; it must be positive", hidden));
  const int64_t rows = cell.gates * hidden;
  expect_shape(ctx, node, 1, {dirs, rows, input}, "W", {DType::f32});
  expect_shape(ctx, node, 2, {dirs, rows, hidden}, "R", {DType::f32});
  if (has_input(node, 3)) expect_shape(ctx, node, 3, {dirs, 2 * rows}, "B", {DType::f32});
  if (has_input(node, 4)) expect_shape(ctx, node, 4, {batch}, "sequence_lens", {DType::i32});
  const std::vector<int64_t> state = layout ? std::vector<int64_t>{batch, dirs, hidden}
                                            : std::vector<int64_t>{dirs, batch, hidden};
  if (has_input(node, 5)) expect_shape(ctx, node, 5, state, "initial_h", {DType::f32});
  if (has_input(node, 6)) expect_shape(ctx, node, 6, state, "initial_c", {DType::f32});
  if (has_input(node, 7)) expect_shape(ctx, node, 7, {dirs, 3 * hidden}, "P", {DType::f32});

  std::vector<std::string> activations;
  for (int64_t d = 0; d < dirs; ++d) {
    activations.insert(activations.end(), cell.default_activations.begin(), cell.default_activations.end());
  }
  activations = node.attrs.get_strings("activations", activations);
  if (activations.size() != cell.default_activations.size() * static_cast<size_t>(dirs)) {
    throw Error(fmt::format("activations [{}] must name {} functions per direction", fmt::join(activations, ","),
                            cell.default_activations.size()));
  }
  const std::vector<float> none;
  recurrent_activations(activations, node.attrs.has("activation_alpha") ? node.attrs.get_floats("activation_alpha") : none,
                        node.attrs.has("activation_beta") ? node.attrs.get_floats("activation_beta") : none);
  if (node.attrs.has("clip") && !(node.attrs.get_float("clip") > 0)) {
    throw Error(fmt::format("clip is {}; it must be positive", node.attrs.get_float("clip")));
  }
  node.attrs.set("activations", activations);
  node.attrs.set("direction", direction);
  node.attrs.set("hidden_size", hidden);
  node.attrs.set("layout", layout);
  node.attrs.set("linear_before_reset", int64_t{node.attrs.get_int("linear_before_reset", 0) != 0});
  node.attrs.set("input_forget", int64_t{node.attrs.get_int("input_forget", 0) != 0});

  const TensorType y{DType::f32, layout ? std::vector<int64_t>{batch, seq, dirs, hidden}
                                        : std::vector<int64_t>{seq, dirs, batch, hidden}};
  std::vector<TensorType> outputs = {y, TensorType{DType::f32, state}, TensorType{DType::f32, state}};
  outputs.resize(node.outputs.size());
  return outputs;
}

}  // namespace nee
