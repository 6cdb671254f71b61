// Models whose shapes depend on their inputs' shapes or on values they compute, run
// through one StagedSession: each result is checked against the computation written out
// in C++ (or a Session imported at that shape), and the counts of stages made show that
// a shape or deciding value seen before makes nothing new.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::values_of;

StagedSession make(const OnnxModelBuilder& model, size_t capacity = 16) {
  return StagedSession(load_staged_onnx_bytes(model.bytes()),
                       [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, SessionOptions{optimize_graph},
                       capacity);
}

// y = softmax(x W) over the last dim, x of shape batch x seq x 4.
OnnxModelBuilder symbolic_model() {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"batch", "seq", "4"}).output("y");
  m.initializer("w", random_tensor(TensorType{DType::f32, {4, 3}}, 7));
  m.node("MatMul", {"x", "w"}, {"xw"});
  m.node("Softmax", {"xw"}, {"y"});
  return m;
}

TEST(StagedSession, EachShapeMatchesASessionImportedAtIt) {
  const OnnxModelBuilder model = symbolic_model();
  StagedSession session = make(model);
  const std::vector<std::vector<int64_t>> shapes = {{1, 5, 4}, {2, 9, 4}, {1, 16, 4}, {1, 5, 4}};
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Tensor x = random_tensor(TensorType{DType::f32, shapes[k]}, 100 + k);
    const Tensor got = session.run({{"x", x}}).at("y");
    EXPECT_EQ(session.last_stages().size(), 1u);  // static once the input shapes are known
    Session alone(import_onnx_bytes(model.bytes(), {{"x", shapes[k]}}), {}, SessionOptions{optimize_graph});
    const Tensor want = alone.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{shapes[k][0], shapes[k][1], 3}));
    EXPECT_EQ(values_of(got), values_of(want));
  }
  EXPECT_EQ(session.made(), 3u);  // the fourth shape is the first again
  EXPECT_EQ(session.kept(), 3u);
}

TEST(StagedSession, RunsFromSeveralThreadsSurviveTheirStagesLeavingTheCache) {
  // Capacity 1 and three shapes: nearly every run drops the stage another run is using.
  const OnnxModelBuilder model = symbolic_model();
  StagedSession session = make(model, 1);
  const std::vector<std::vector<int64_t>> shapes = {{1, 5, 4}, {2, 9, 4}, {1, 16, 4}};
  std::vector<Tensor> xs, wants;
  for (size_t k = 0; k < shapes.size(); ++k) {
    xs.push_back(random_tensor(TensorType{DType::f32, shapes[k]}, 200 + k));
    Session alone(import_onnx_bytes(model.bytes(), {{"x", shapes[k]}}), {}, SessionOptions{optimize_graph});
    wants.push_back(alone.run({{"x", xs[k]}}).at("y"));
  }
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const size_t k = static_cast<size_t>(t + i) % shapes.size();
        StagedSession::Stages stages;
        const Tensor got = session.run({{"x", xs[k]}}, {}, &stages).at("y");
        if (stages.size() != 1 || values_of(got) != values_of(wants[k])) ++wrong[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
  EXPECT_EQ(session.kept(), 1u);
  EXPECT_GE(session.made(), 3u);
}

TEST(StagedSession, TheLeastRecentlyUsedGoesPastCapacity) {
  StagedSession session = make(symbolic_model(), 2);
  const auto run_at = [&session](int64_t seq) {
    session.run({{"x", random_tensor(TensorType{DType::f32, {1, seq, 4}}, 1)}});
  };
  run_at(2);
  run_at(3);
  run_at(2);  // 3 is now the least recently used
  run_at(4);  // evicts 3
  EXPECT_EQ(session.made(), 3u);
  run_at(2);  // still kept
  EXPECT_EQ(session.made(), 3u);
  run_at(3);  // made again
  EXPECT_EQ(session.made(), 4u);
  EXPECT_EQ(session.kept(), 2u);
}

// A branch computing `op`(x, c) for a constant c, reading x from the outer graph.
OnnxModelBuilder branch(const std::string& op, float c, const std::string& out) {
  OnnxModelBuilder b;
  b.initializer("c", make_f32({}, {c}));
  b.node(op, {"x", "c"}, {out});
  b.output(out);
  return b;
}

TEST(StagedSession, IfOnComputedDataTakesTheBranchTheDataChooses) {
  // y = x * 2 if sum(x) > 0 else x - 1
  OnnxModelBuilder m;
  m.input("x", {3}).output("y");
  m.initializer("zero", make_f32({}, {0}));
  m.node("ReduceSum", {"x"}, {"sum"});
  m.node("Greater", {"sum", "zero"}, {"cond"});
  onnx::NodeProto& n = m.node("If", {"cond"}, {"y"});
  set_attr(n, "then_branch", branch("Mul", 2, "twice"));
  set_attr(n, "else_branch", branch("Sub", 1, "less"));
  StagedSession session = make(m);
  const std::vector<float> up = {1, -2, 3}, down = {-1, 2, -3};
  EXPECT_EQ(values_of(session.run({{"x", make_f32({3}, up)}}).at("y")), (std::vector<float>{2, -4, 6}));
  EXPECT_EQ(session.last_stages().size(), 2u);  // the condition, then the branch it chose
  EXPECT_EQ(values_of(session.run({{"x", make_f32({3}, down)}}).at("y")), (std::vector<float>{-2, 1, -4}));
  EXPECT_EQ(session.made(), 3u);  // the first stage again, the other branch new
  EXPECT_EQ(values_of(session.run({{"x", make_f32({3}, {4, 5, 6})}}).at("y")), (std::vector<float>{8, 10, 12}));
  EXPECT_EQ(session.made(), 3u);
}

TEST(StagedSession, LoopRunsUntilItsComputedConditionTurnsFalse) {
  // while sum(v) < 100: v = v * 2, keeping every v as a scan output.
  OnnxModelBuilder body;
  body.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {}).input("v", {2});
  body.initializer("two", make_f32({}, {2}));
  body.initializer("limit", make_f32({}, {100}));
  body.node("Mul", {"v", "two"}, {"v_out"});
  body.node("ReduceSum", {"v_out"}, {"sum"});
  body.node("Less", {"sum", "limit"}, {"cond_out"});
  body.node("Identity", {"v_out"}, {"each"});
  body.output("cond_out", onnx::TensorProto::BOOL).output("v_out").output("each");
  OnnxModelBuilder m;
  m.input("v0", {2}).output("v_final").output("all");
  set_attr(m.node("Loop", {"", "", "v0"}, {"v_final", "all"}), "body", body);
  StagedSession session = make(m);
  for (const std::vector<float>& start : {std::vector<float>{1, 2}, std::vector<float>{10, 30}}) {
    std::vector<float> v = start, all;
    int iterations = 0;
    do {
      for (float& e : v) e *= 2;
      all.insert(all.end(), v.begin(), v.end());
      ++iterations;
    } while (v[0] + v[1] < 100);
    const auto out = session.run({{"v0", make_f32({2}, start)}});
    EXPECT_EQ(values_of(out.at("v_final")), v);
    EXPECT_EQ(out.at("all").shape(), (std::vector<int64_t>{iterations, 2}));
    EXPECT_EQ(values_of(out.at("all")), all);
  }
}

TEST(StagedSession, NonZeroOfComputedDataFeedsTheRestOfTheModel) {
  // y = x[x > 0]
  OnnxModelBuilder m;
  m.input("x", {6}).output("y");
  m.initializer("zero", make_f32({}, {0}));
  m.initializer("axis0", make_i64({1}, {0}));
  m.node("Greater", {"x", "zero"}, {"positive"});
  m.node("NonZero", {"positive"}, {"where"});
  m.node("Squeeze", {"where", "axis0"}, {"indices"});
  m.node("Gather", {"x", "indices"}, {"y"});
  StagedSession session = make(m);
  const Tensor y = session.run({{"x", make_f32({6}, {3, -1, 0, 2, -5, 7})}}).at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(values_of(y), (std::vector<float>{3, 2, 7}));
  EXPECT_EQ(values_of(session.run({{"x", make_f32({6}, {-3, 1, -1, -1, -1, -1})}}).at("y")), (std::vector<float>{1}));
}

TEST(StagedSession, AShapeGivenAsAnInputIsSpecializedOn) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).input("shape", onnx::TensorProto::INT64, {"2"}).output("y");
  m.node("Reshape", {"x", "shape"}, {"y"});
  StagedSession session = make(m);
  const Tensor x = make_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 2}, std::vector<int64_t>{1, 6}}) {
    const Tensor y = session.run({{"x", x}, {"shape", make_i64({2}, shape)}}).at("y");
    EXPECT_EQ(y.shape(), shape);
    EXPECT_EQ(values_of(y), values_of(x));
  }
  EXPECT_EQ(session.made(), 3u);  // one first stage, one Reshape per shape
}

TEST(StagedSession, AMissingInputIsNamed) {
  StagedSession session = make(symbolic_model());
  try {
    session.run({});
    FAIL() << "ran without its input";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "graph input 'x' is not given");
  }
}

}  // namespace
}  // namespace nee
