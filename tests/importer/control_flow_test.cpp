// If, Loop and Scan resolved at import (importer/control_flow.h): a known condition
// inlines its branch, a known trip count unrolls its loop, Scan becomes one body per
// slice; every result is checked against the same computation written out in C++.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "import_and_run.h"
#include "importer/import_onnx.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::values_of;
using ::testing::HasSubstr;

Tensor bool_scalar(bool value) {
  Tensor t(DType::boolean, {});
  *static_cast<uint8_t*>(t.data()) = value ? 1 : 0;
  return t;
}

// A branch computing `op`(x, c) for a constant c, reading x from the outer graph.
OnnxModelBuilder branch(const std::string& op, float c, const std::string& out) {
  OnnxModelBuilder b;
  b.initializer("c", make_f32({}, {c}));
  b.node(op, {"x", "c"}, {out});
  b.output(out);
  return b;
}

// y = x * 2 when the condition holds, x - 1 otherwise.
OnnxModelBuilder if_model(const std::string& cond_input) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).output("y");
  onnx::NodeProto& n = m.node("If", {cond_input}, {"y"});
  set_attr(n, "then_branch", branch("Mul", 2, "twice"));
  set_attr(n, "else_branch", branch("Sub", 1, "less"));
  return m;
}

TEST(ControlFlow, IfWithAConstantConditionBecomesItsBranch) {
  const Tensor x = make_f32({2, 3}, {1, -2, 3, -4, 5, -6});
  for (bool cond : {true, false}) {
    OnnxModelBuilder m = if_model("cond");
    m.initializer("cond", bool_scalar(cond));
    const Graph graph = import_onnx_bytes(m.bytes());
    std::vector<std::string> ops;
    for (const Node& node : graph.nodes()) ops.push_back(node.op);
    EXPECT_EQ(ops, (std::vector<std::string>{cond ? "Mul" : "Sub", "Identity"}));  // the branch, then its output
    const std::vector<float> got = values_of(test::run_single_output(m, {{"x", x}}));
    for (size_t i = 0; i < got.size(); ++i) {
      const float v = values_of(x)[i];
      EXPECT_EQ(got[i], cond ? v * 2 : v - 1);
    }
  }
}

TEST(ControlFlow, IfOnAShapeIsDecidedAtImport) {
  // cond = x.shape[1] > 2: exporters write this for size checks; static shapes decide it.
  OnnxModelBuilder m = if_model("cond");
  m.initializer("one", make_i64({1}, {1}));
  m.initializer("two", make_i64({}, {2}));
  m.node("Shape", {"x"}, {"shape"});
  m.node("Gather", {"shape", "one"}, {"dim1"});
  m.node("Squeeze", {"dim1"}, {"dim"});
  m.node("Greater", {"dim", "two"}, {"cond"});
  const std::vector<float> got = values_of(test::run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})}}));
  EXPECT_EQ(got, (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

TEST(ControlFlow, IfOnComputedDataNeedsStages) {
  OnnxModelBuilder m = if_model("cond");
  m.node("ReduceSum", {"x"}, {"sum"});
  m.initializer("zero", make_f32({}, {0}));
  m.node("Greater", {"sum", "zero"}, {"cond"});
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "a plain import of an If on computed data succeeded";
  } catch (const ValueNeeded& e) {
    EXPECT_EQ(e.value(), "cond");
    EXPECT_THAT(e.what(), HasSubstr("condition ('cond') is computed from the model's data"));
  }
}

// A loop body: acc_out = acc_in + x * i (x read from the outer graph), with acc_out as
// its scan output too; the condition passes through.
OnnxModelBuilder accumulate_body() {
  OnnxModelBuilder b;
  b.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {});
  b.input("acc_in", {3});
  set_attr(b.node("Cast", {"i"}, {"i_f"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"x", "i_f"}, {"xi"});
  b.node("Add", {"acc_in", "xi"}, {"acc_out"});
  b.node("Identity", {"cond_in"}, {"cond_out"});
  b.node("Identity", {"acc_out"}, {"scan_out"});
  b.output("cond_out", onnx::TensorProto::BOOL).output("acc_out").output("scan_out");
  return b;
}

TEST(ControlFlow, LoopWithAKnownTripCountIsUnrolled) {
  OnnxModelBuilder m;
  m.input("x", {3}).output("final").output("all");
  m.initializer("trips", make_i64({}, {4}));
  m.initializer("start", make_f32({3}, {10, 20, 30}));
  onnx::NodeProto& n = m.node("Loop", {"trips", "", "start"}, {"final", "all"});
  set_attr(n, "body", accumulate_body());
  const std::vector<float> x = {1, 2, 3};
  const auto out = test::run_model(m, {{"x", make_f32({3}, x)}});
  std::vector<float> acc = {10, 20, 30}, all;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) acc[k] += x[k] * static_cast<float>(i);
    all.insert(all.end(), acc.begin(), acc.end());
  }
  EXPECT_EQ(values_of(out.at("final")), acc);
  EXPECT_EQ(out.at("all").shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(values_of(out.at("all")), all);
}

TEST(ControlFlow, LoopThatNeverStopsIsRefused) {
  OnnxModelBuilder m;
  m.input("x", {3}).output("final");
  m.initializer("yes", bool_scalar(true));
  m.initializer("start", make_f32({3}, {0, 0, 0}));
  OnnxModelBuilder body;
  body.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {}).input("v", {3});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.node("Add", {"v", "x"}, {"v_out"});
  body.output("cond_out", onnx::TensorProto::BOOL).output("v_out");
  set_attr(m.node("Loop", {"", "yes", "start"}, {"final"}), "body", body);
  EXPECT_THAT(test::import_error(m), HasSubstr("it ran 10000 iterations, the most NEE inlines"));
}

TEST(ControlFlow, ScanRunsItsBodyOverEachSliceInBothDirections) {
  // Running sum over the rows of x: state s, scan input row, scan output s + row.
  OnnxModelBuilder body;
  body.input("s", {2}).input("row", {2});
  body.node("Add", {"s", "row"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y"});
  body.output("s_out").output("y");
  for (int64_t direction : {0, 1}) {
    OnnxModelBuilder m;
    m.input("x", {3, 2}).output("total").output("sums");
    m.initializer("init", make_f32({2}, {0, 0}));
    onnx::NodeProto& n = m.node("Scan", {"init", "x"}, {"total", "sums"});
    set_attr(n, "body", body);
    set_attr(n, "num_scan_inputs", int64_t{1});
    set_attr(n, "scan_input_directions", std::vector<int64_t>{direction});
    const auto out = test::run_model(m, {{"x", make_f32({3, 2}, {1, 2, 3, 4, 5, 6})}});
    EXPECT_EQ(values_of(out.at("total")), (std::vector<float>{9, 12}));
    EXPECT_EQ(values_of(out.at("sums")), direction == 0 ? (std::vector<float>{1, 2, 4, 6, 9, 12})
                                                        : (std::vector<float>{5, 6, 8, 10, 9, 12}));
  }
}

TEST(ControlFlow, NestedSubgraphsSeeTheValuesOfEveryScopeAbove) {
  // A loop whose body holds an If (on a constant) that reads x (the model's) and v (the
  // body's): v_out = v + x, three times.
  OnnxModelBuilder inner;
  inner.node("Add", {"v", "x"}, {"sum"});
  inner.output("sum");
  OnnxModelBuilder body;
  body.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {}).input("v", {2});
  body.initializer("yes", bool_scalar(true));
  onnx::NodeProto& when = body.node("If", {"yes"}, {"v_out"});
  set_attr(when, "then_branch", inner);
  set_attr(when, "else_branch", inner);
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.output("cond_out", onnx::TensorProto::BOOL).output("v_out");
  OnnxModelBuilder m;
  m.input("x", {2}).output("v_final");
  m.initializer("trips", make_i64({}, {3}));
  m.initializer("start", make_f32({2}, {1, 1}));
  set_attr(m.node("Loop", {"trips", "", "start"}, {"v_final"}), "body", body);
  EXPECT_EQ(values_of(test::run_single_output(m, {{"x", make_f32({2}, {2, 5})}})), (std::vector<float>{7, 16}));
}

TEST(ControlFlow, OpsetEightScanIsRefusedByName) {
  OnnxModelBuilder body;
  body.input("s", {2}).input("row", {2});
  body.node("Add", {"s", "row"}, {"s_out"});
  body.output("s_out");
  OnnxModelBuilder m(8);
  m.input("x", {1, 3, 2}).output("total");
  m.initializer("init", make_f32({1, 2}, {0, 0}));
  onnx::NodeProto& n = m.node("Scan", {"", "init", "x"}, {"total"});
  set_attr(n, "body", body);
  set_attr(n, "num_scan_inputs", int64_t{1});
  EXPECT_THAT(test::import_error(m), HasSubstr("Scan of opset 8"));
}

}  // namespace
}  // namespace nee
