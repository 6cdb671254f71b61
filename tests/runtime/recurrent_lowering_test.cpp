// lower_recurrent: RNN, GRU and LSTM with constant weights become a matrix product of every
// step's input and NeeRecurrence, computing what the unlowered node computes.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::set_attr;
using test::set_string_attr;

// A weight of `shape` scaled to +-0.3, so that sums over a few hundred units keep the
// gates off their saturated ends.
Tensor weight(const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = random_tensor({DType::f32, shape}, seed);
  for (int64_t i = 0; i < t.elements(); ++i) t.data_as<float>()[i] *= 0.3f;
  return t;
}

struct Layer {
  std::string op;  // RNN, GRU or LSTM
  std::string direction = "forward";
  int64_t seq = 5, batch = 2, input = 6, hidden = 20;
  bool batch_first = false, linear_before_reset = false, peepholes = false, lengths = false, initial = false;
  float clip = 0;
};

int64_t gates_of(const std::string& op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

std::string layer_bytes(const Layer& l) {
  const int64_t dirs = l.direction == "bidirectional" ? 2 : 1, rows = gates_of(l.op) * l.hidden;
  OnnxModelBuilder m;
  m.input("x", l.batch_first ? std::vector<int64_t>{l.batch, l.seq, l.input}
                             : std::vector<int64_t>{l.seq, l.batch, l.input});
  m.initializer("w", weight({dirs, rows, l.input}, 1));
  m.initializer("r", weight({dirs, rows, l.hidden}, 2));
  m.initializer("b", weight({dirs, 2 * rows}, 3));
  std::vector<std::string> inputs = {"x", "w", "r", "b", "", "", "", ""};
  if (l.lengths) {
    Tensor lens(DType::i32, {l.batch});
    for (int64_t b = 0; b < l.batch; ++b) lens.data_as<int32_t>()[b] = static_cast<int32_t>(l.seq - 2 * b);
    m.initializer("lens", lens);
    inputs[4] = "lens";
  }
  const std::vector<int64_t> state =
      l.batch_first ? std::vector<int64_t>{l.batch, dirs, l.hidden} : std::vector<int64_t>{dirs, l.batch, l.hidden};
  if (l.initial) {
    m.input("h0", state);
    inputs[5] = "h0";
    if (l.op == "LSTM") {
      m.input("c0", state);
      inputs[6] = "c0";
    }
  }
  if (l.peepholes) {
    m.initializer("p", weight({dirs, 3 * l.hidden}, 4));
    inputs[7] = "p";
  }
  while (inputs.back().empty()) inputs.pop_back();
  std::vector<std::string> outputs = {"y", "y_h"};
  if (l.op == "LSTM") outputs.push_back("y_c");
  onnx::NodeProto& node = m.node(l.op, inputs, outputs, "layer");
  set_attr(node, "hidden_size", l.hidden);
  set_string_attr(node, "direction", l.direction);
  if (l.batch_first) set_attr(node, "layout", int64_t{1});
  if (l.linear_before_reset) set_attr(node, "linear_before_reset", int64_t{1});
  if (l.clip > 0) set_attr(node, "clip", l.clip);
  for (const std::string& out : outputs) m.output(out);
  return m.bytes();
}

// Lowers the layer, checks the ops, and compares every output with the unlowered
// node's on the reference kernels, for two random inputs.
void expect_lowered_matches(const Layer& l) {
  const std::string bytes = layer_bytes(l);
  Graph lowered = import_onnx_bytes(bytes);
  optimize_graph(lowered);
  std::map<std::string, int> ops;
  for (const Node& n : lowered.nodes()) ++ops[n.op];
  EXPECT_EQ(ops["NeeRecurrence"], 1) << l.op;
  EXPECT_EQ(ops["NeeMatMul"], 1) << l.op;
  EXPECT_EQ(ops[l.op], 0) << l.op;
  Session lowered_session(lowered, {});
  Session plain(import_onnx_bytes(bytes), {});
  for (uint64_t seed : {31, 32}) {
    std::map<std::string, Tensor> inputs;
    for (const std::string& name : plain.graph().inputs()) {
      inputs[name] = random_tensor(plain.graph().type_of(name), seed++);
    }
    const std::map<std::string, Tensor> got = lowered_session.run(inputs), want = plain.run(inputs);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, w] : want) {
      const Tensor& g = got.at(name);
      ASSERT_EQ(g.shape(), w.shape()) << name;
      float peak = 0;
      for (int64_t i = 0; i < w.elements(); ++i) peak = std::max(peak, std::abs(w.data_as<float>()[i]));
      EXPECT_GT(peak, 0.05f) << name;  // outputs that carry a signal
      for (int64_t i = 0; i < w.elements(); ++i) {
        ASSERT_NEAR(g.data_as<float>()[i], w.data_as<float>()[i], 1e-5f) << l.op << " " << name << " at " << i;
      }
    }
  }
}

TEST(LowerRecurrent, ABidirectionalLstmWithPeepholesLengthsAndInitialStateRunsLowered) {
  Layer l{"LSTM"};
  l.direction = "bidirectional";
  l.peepholes = l.lengths = l.initial = true;
  expect_lowered_matches(l);
}

TEST(LowerRecurrent, GrusOfBothResetOrdersRunLowered) {
  Layer reverse_batch_first{"GRU"};
  reverse_batch_first.direction = "reverse";
  reverse_batch_first.batch_first = reverse_batch_first.initial = true;
  reverse_batch_first.hidden = 24;
  expect_lowered_matches(reverse_batch_first);
  Layer linear{"GRU"};
  linear.linear_before_reset = true;
  linear.hidden = 40;
  linear.lengths = true;
  expect_lowered_matches(linear);
}

TEST(LowerRecurrent, AClippedRnnRunsLowered) {
  Layer l{"RNN"};
  l.hidden = 130;
  l.clip = 0.5f;
  expect_lowered_matches(l);
}

// 4 x 192 x 192 multiply-adds a step: the units split between threads where there are
// two cores or more, meeting once a step.
TEST(LowerRecurrent, AWideLstmSplitsItsUnitsBetweenThreads) {
  Layer l{"LSTM"};
  l.hidden = 192;
  l.batch = 1;
  l.seq = 7;
  expect_lowered_matches(l);
  Layer gru{"GRU"};
  gru.hidden = 200;
  gru.batch = 1;
  expect_lowered_matches(gru);
}

// Weights that are inputs stay on the unlowered node.
TEST(LowerRecurrent, WeightsThatAreInputsStayOnTheNode) {
  OnnxModelBuilder m;
  m.input("x", {3, 1, 4}).input("w", {1, 8, 4}).input("r", {1, 8, 8});
  set_attr(m.node("RNN", {"x", "w", "r"}, {"y"}, "layer"), "hidden_size", int64_t{8});
  m.output("y");
  Graph g = import_onnx_bytes(m.bytes());
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].op, "RNN");
}

}  // namespace
}  // namespace nee
