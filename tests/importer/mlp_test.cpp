// An MLP (MatMul+Add+Relu, MatMul+Add+Relu, Gemm) imported, optimized and run; the
// expected output is computed here with plain loops.
#include <gtest/gtest.h>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::set_attr;

// y = x W (+ b), optional relu; W is [k, n] unless transposed ([n, k]).
std::vector<float> dense(const std::vector<float>& x, int64_t m, int64_t k, const Tensor& w, int64_t n,
                         const Tensor& b, bool relu, bool w_transposed) {
  std::vector<float> y(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = b.data_as<float>()[j];
      for (int64_t p = 0; p < k; ++p) {
        const float wv = w_transposed ? w.data_as<float>()[j * k + p] : w.data_as<float>()[p * n + j];
        sum += x[i * k + p] * wv;
      }
      y[i * n + j] = relu && sum < 0 ? 0 : sum;
    }
  }
  return y;
}

TEST(Mlp, SessionMatchesHandComputedReference) {
  const int64_t batch = 3, in = 8, hidden = 16, out = 4;
  const Tensor w1 = random_tensor({DType::f32, {in, hidden}}, 1);
  const Tensor b1 = random_tensor({DType::f32, {hidden}}, 2);
  const Tensor w2 = random_tensor({DType::f32, {hidden, hidden}}, 3);
  const Tensor b2 = random_tensor({DType::f32, {hidden}}, 4);
  const Tensor w3 = random_tensor({DType::f32, {out, hidden}}, 5);
  const Tensor b3 = random_tensor({DType::f32, {out}}, 6);
  const Tensor x = random_tensor({DType::f32, {batch, in}}, 7);

  OnnxModelBuilder m;
  m.input("x", {batch, in}).output("y", {batch, out});
  m.initializer("w1", w1).initializer("b1", b1).initializer("w2", w2).initializer("b2", b2);
  m.initializer("w3", w3).initializer("b3", b3);
  m.node("MatMul", {"x", "w1"}, {"h1"}, "fc1");
  m.node("Add", {"h1", "b1"}, {"h1b"}, "fc1_bias");
  m.node("Relu", {"h1b"}, {"a1"}, "fc1_relu");
  m.node("MatMul", {"a1", "w2"}, {"h2"}, "fc2");
  m.node("Add", {"b2", "h2"}, {"h2b"}, "fc2_bias");
  m.node("Relu", {"h2b"}, {"a2"}, "fc2_relu");
  set_attr(m.node("Gemm", {"a2", "w3", "b3"}, {"y"}, "head"), "transB", int64_t{1});

  Session session(import_onnx_bytes(m.bytes()), {}, SessionOptions{optimize_graph});
  const auto outputs = session.run({{"x", x}});

  const std::vector<float> xv(x.data_as<float>(), x.data_as<float>() + x.elements());
  const auto a1 = dense(xv, batch, in, w1, hidden, b1, true, false);
  const auto a2 = dense(a1, batch, hidden, w2, hidden, b2, true, false);
  const auto expected = dense(a2, batch, hidden, w3, out, b3, false, true);
  const Tensor& y = outputs.at("y");
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{batch, out}));
  for (int64_t i = 0; i < y.elements(); ++i) EXPECT_NEAR(y.data_as<float>()[i], expected[i], 1e-5f);

  const auto placements = session.placements();
  ASSERT_EQ(placements.size(), 3u);
  for (const Placement& p : placements) {
    EXPECT_EQ(p.op, "NeeMatMul");
    EXPECT_EQ(p.provider, "reference");
  }
  EXPECT_EQ(placements[0].node, "fc1");
  EXPECT_EQ(session.graph().nodes()[0].attrs.get_int("relu"), 1);
  // fc3's Gemm has transB and constant weights: held as [K, N], with trans_b cleared.
  EXPECT_EQ(session.graph().nodes()[2].attrs.get_int("trans_b"), 0);
  EXPECT_EQ(session.graph().type_of(session.graph().nodes()[2].inputs[1]).shape,
            (std::vector<int64_t>{hidden, out}));
  EXPECT_EQ(session.node_times_us().size(), 3u);
  EXPECT_EQ(extract_workloads(session.graph()).size(), 3u);
}

}  // namespace
}  // namespace nee
