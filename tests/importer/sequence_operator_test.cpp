// Einsum and the recurrent layers (RNN, GRU, LSTM): values worked out by hand where they
// are short, and otherwise relations the spec implies: a bidirectional layer is a forward
// and a reverse layer side by side, a reverse layer is a forward one over the reversed
// sequence, and a batch entry with a shorter sequence_lens is that shorter sequence alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "import_and_run.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::make_f32;
using test::random_f32;
using test::run_model;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  OnnxModelBuilder m;
  std::vector<std::string> names;
  std::map<std::string, Tensor> feed;
  for (size_t i = 0; i < operands.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), operands[i].shape());
    feed[names.back()] = operands[i];
  }
  m.output("y");
  set_string_attr(m.node("Einsum", names, {"y"}), "equation", equation);
  return run_model(m, feed).at("y");
}

TEST(Einsum, BatchMatmulTraceTransposeAndImplicitOutput) {
  const Tensor a = make_f32({1, 2, 2}, {1, 2, 3, 4}), b = make_f32({1, 2, 2}, {5, 6, 7, 8});
  EXPECT_THAT(values_of(einsum("bij,bjk->bik", {a, b})), ElementsAre(19, 22, 43, 50));
  EXPECT_THAT(values_of(einsum("bii->b", {a})), ElementsAre(5));              // trace
  EXPECT_THAT(values_of(einsum("...ij->...ji", {a})), ElementsAre(1, 3, 2, 4));
  const Tensor t = einsum("ji", {make_f32({2, 3}, {1, 2, 3, 4, 5, 6})});      // implicit: "ij" order
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(values_of(t), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(values_of(einsum("i,i", {make_f32({3}, {1, 2, 3}), make_f32({3}, {4, 5, 6})})), ElementsAre(32));
}

TEST(Einsum, LabelsOfTwoSizesAreRefused) {
  OnnxModelBuilder m;
  m.input("a", {2, 3}).input("b", {2, 3}).output("y");
  set_string_attr(m.node("Einsum", {"a", "b"}, {"y"}), "equation", "ij,jk->ik");
  EXPECT_THROW(import_onnx_bytes(m.bytes()), Error);
}

// Slice `index` of the leading dim of t.
Tensor slice0(const Tensor& t, int64_t index) {
  std::vector<int64_t> shape(t.shape().begin() + 1, t.shape().end());
  Tensor s(DType::f32, shape);
  std::copy(t.data_as<float>() + index * s.elements(), t.data_as<float>() + (index + 1) * s.elements(),
            s.data_as<float>());
  return s;
}

Tensor with_leading_one(const Tensor& t) {
  std::vector<int64_t> shape = t.shape();
  shape.insert(shape.begin(), 1);
  Tensor s(DType::f32, shape);
  std::copy(t.data_as<float>(), t.data_as<float>() + t.elements(), s.data_as<float>());
  return s;
}

// A one-layer `op` with `hidden` units over X [seq, batch, input]; outputs Y and Y_h.
std::map<std::string, Tensor> recurrent(const std::string& op, const std::string& direction, const Tensor& x,
                                        const Tensor& w, const Tensor& r, const Tensor& b, int64_t hidden,
                                        const std::vector<int32_t>& lens = {}) {
  OnnxModelBuilder m;
  m.input("x", x.shape()).output("y").output("y_h");
  m.initializer("w", w).initializer("r", r).initializer("b", b);
  std::vector<std::string> inputs = {"x", "w", "r", "b"};
  if (!lens.empty()) {
    Tensor l(DType::i32, {static_cast<int64_t>(lens.size())});
    std::copy(lens.begin(), lens.end(), l.data_as<int32_t>());
    m.initializer("lens", l);
    inputs.push_back("lens");
  }
  onnx::NodeProto& node = m.node(op, inputs, {"y", "y_h"});
  set_attr(node, "hidden_size", hidden);
  set_string_attr(node, "direction", direction);
  return run_model(m, {{"x", x}});
}

class Recurrent : public ::testing::TestWithParam<std::string> {};

TEST_P(Recurrent, BidirectionalIsAForwardAndAReverseLayer) {
  const std::string op = GetParam();
  const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1, hidden = 3, input = 2, seq = 4, batch = 2;
  const Tensor x = random_f32({seq, batch, input}, 1, 0.5f), w = random_f32({2, gates * hidden, input}, 2, 0.5f);
  const Tensor r = random_f32({2, gates * hidden, hidden}, 3, 0.5f), b = random_f32({2, 2 * gates * hidden}, 4, 0.5f);
  const auto both = recurrent(op, "bidirectional", x, w, r, b, hidden);
  const auto forward = recurrent(op, "forward", x, with_leading_one(slice0(w, 0)), with_leading_one(slice0(r, 0)),
                                 with_leading_one(slice0(b, 0)), hidden);
  const auto reverse = recurrent(op, "reverse", x, with_leading_one(slice0(w, 1)), with_leading_one(slice0(r, 1)),
                                 with_leading_one(slice0(b, 1)), hidden);
  const std::vector<float> y = values_of(both.at("y")), yf = values_of(forward.at("y")), yr = values_of(reverse.at("y"));
  ASSERT_EQ(y.size(), static_cast<size_t>(seq * 2 * batch * hidden));
  for (int64_t t = 0; t < seq; ++t) {
    for (int64_t i = 0; i < batch * hidden; ++i) {
      EXPECT_FLOAT_EQ(y[(t * 2 + 0) * batch * hidden + i], yf[t * batch * hidden + i]);
      EXPECT_FLOAT_EQ(y[(t * 2 + 1) * batch * hidden + i], yr[t * batch * hidden + i]);
    }
  }
  // Y_h: the forward state after the last step, the reverse state after step 0.
  const std::vector<float> h = values_of(both.at("y_h"));
  for (int64_t i = 0; i < batch * hidden; ++i) {
    EXPECT_FLOAT_EQ(h[i], yf[(seq - 1) * batch * hidden + i]);
    EXPECT_FLOAT_EQ(h[batch * hidden + i], yr[i]);
  }
}

TEST_P(Recurrent, ShorterSequenceLensIsThatSequenceAloneThenZeros) {
  const std::string op = GetParam();
  const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1, hidden = 2, input = 3, seq = 3, batch = 1;
  const Tensor x = random_f32({seq, batch, input}, 5, 0.5f), w = random_f32({1, gates * hidden, input}, 6, 0.5f);
  const Tensor r = random_f32({1, gates * hidden, hidden}, 7, 0.5f), b = random_f32({1, 2 * gates * hidden}, 8, 0.5f);
  Tensor x2(DType::f32, {2, batch, input});
  std::copy(x.data_as<float>(), x.data_as<float>() + x2.elements(), x2.data_as<float>());
  for (const std::string direction : {"forward", "reverse"}) {
    const auto cut = recurrent(op, direction, x, w, r, b, hidden, {2});
    const auto alone = recurrent(op, direction, x2, w, r, b, hidden);
    const std::vector<float> y = values_of(cut.at("y")), y2 = values_of(alone.at("y"));
    for (size_t i = 0; i < y2.size(); ++i) EXPECT_FLOAT_EQ(y[i], y2[i]) << direction;
    for (size_t i = y2.size(); i < y.size(); ++i) EXPECT_EQ(y[i], 0.0f) << direction;
    EXPECT_EQ(values_of(cut.at("y_h")), values_of(alone.at("y_h"))) << direction;
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, Recurrent, ::testing::Values("RNN", "GRU", "LSTM"));

TEST(RecurrentImport, WrongWeightShapeIsNamed) {
  OnnxModelBuilder m;
  m.input("x", {2, 1, 3}).output("y");
  m.initializer("w", random_f32({1, 8, 2}, 1, 0.5f)).initializer("r", random_f32({1, 8, 2}, 2, 0.5f));
  set_attr(m.node("LSTM", {"x", "w", "r"}, {"y"}), "hidden_size", int64_t{2});
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "imported";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("W ('w')"));
  }
}

}  // namespace
}  // namespace nee
