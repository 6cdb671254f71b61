// A model made of attention's data movement (Slices of a fused projection, a head split
// [0,2,1,3], a key transpose [0,2,3,1], a strided Slice and a default-perm Transpose)
// runs from a default-schedule bundle, CPU and OpenCL (PoCL), with every Transpose and
// Slice on a bundle kernel and the reference kernels' outputs; on OpenCL its values
// stay on the device from the first kernel to the last.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>

#include "default_bundles.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;

const TensorType kInput{DType::f32, {1, 6, 24}};

// x [1,6,24] -> q = x[..., 8:16], k = x[..., 16:24] -> [1,6,2,4] each -> q [0,2,1,3],
// k [0,2,3,1] -> y = q k^T [1,2,6,6]; z = Transpose(x[:, 1::2, :]) [24,3,1].
std::string model_bytes() {
  OnnxModelBuilder m;
  m.input("x", kInput.shape).output("y", {1, 2, 6, 6}).output("z", {24, 3, 1});
  m.initializer("q_start", make_i64({1}, {8}));
  m.initializer("k_start", make_i64({1}, {16}));
  m.initializer("k_end", make_i64({1}, {24}));
  m.initializer("last", make_i64({1}, {-1}));
  m.initializer("heads", make_i64({4}, {1, 6, 2, 4}));
  m.initializer("one", make_i64({1}, {1}));
  m.initializer("big", make_i64({1}, {1000}));
  m.initializer("two", make_i64({1}, {2}));
  m.node("Slice", {"x", "q_start", "k_start", "last"}, {"q"}, "slice_q");
  m.node("Slice", {"x", "k_start", "k_end", "last"}, {"k"}, "slice_k");
  m.node("Reshape", {"q", "heads"}, {"q4"}, "reshape_q");
  m.node("Reshape", {"k", "heads"}, {"k4"}, "reshape_k");
  set_attr(m.node("Transpose", {"q4"}, {"qh"}, "heads_q"), "perm", std::vector<int64_t>{0, 2, 1, 3});
  set_attr(m.node("Transpose", {"k4"}, {"kt"}, "keys_t"), "perm", std::vector<int64_t>{0, 2, 3, 1});
  m.node("MatMul", {"qh", "kt"}, {"y"}, "scores");
  m.node("Slice", {"x", "one", "big", "one", "two"}, {"rows"}, "slice_rows");
  m.node("Transpose", {"rows"}, {"z"}, "reverse");
  return m.bytes();
}

class StridedCopyBundle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<tuner_test::TempDir>("copybundle");
    std::ofstream(model(), std::ios::binary) << model_bytes();
    test::build_default_bundles(*dir_, model(), {"cpu", "opencl"});
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string model() { return dir_->file("attention_moves.onnx"); }

  static Session session_on(const std::string& target) { return test::session_on_bundle(*dir_, model(), target); }

  // Runs `s` on a fresh random x: z, a copy, equals the reference's exactly; y within
  // the MatMul's rounding.
  static void run_and_check(Session& s, uint64_t seed) {
    Session reference(import_onnx(model()), {}, SessionOptions{optimize_graph});
    const Tensor x = random_tensor(kInput, seed);
    const auto got = s.run({{"x", x}});
    const auto want = reference.run({{"x", x}});
    for (const char* name : {"y", "z"}) {
      const Tensor& g = got.at(name);
      const Tensor& w = want.at(name);
      ASSERT_EQ(g.shape(), w.shape()) << name;
      double total = 0;
      for (int64_t i = 0; i < g.elements(); ++i) {
        if (std::string(name) == "z") {
          EXPECT_EQ(g.data_as<float>()[i], w.data_as<float>()[i]) << name << " " << i;
        } else {
          EXPECT_NEAR(g.data_as<float>()[i], w.data_as<float>()[i], 1e-5) << name << " " << i;
        }
        total += std::fabs(w.data_as<float>()[i]);
      }
      EXPECT_GT(total, 0) << name;
    }
  }

  static void expect_copies_on_the_bundle(const Session& s) {
    int copies = 0;
    for (const Placement& p : s.placements()) {
      if (p.op == "Transpose" || p.op == "Slice") {
        EXPECT_EQ(p.provider, "bundle") << p.node;
        ++copies;
      }
    }
    EXPECT_EQ(copies, 6);
  }

  static std::unique_ptr<tuner_test::TempDir> dir_;
};

std::unique_ptr<tuner_test::TempDir> StridedCopyBundle::dir_;

TEST_F(StridedCopyBundle, CpuBundleRunsTransposesAndSlicesLikeTheReference) {
  Session s = session_on("cpu");
  run_and_check(s, 1);
  run_and_check(s, 2);
  expect_copies_on_the_bundle(s);
}

TEST_F(StridedCopyBundle, OpenClBundleKeepsTheCopiesOnTheDevice) {
  Session s = session_on("opencl");
  run_and_check(s, 3);
  run_and_check(s, 4);
  expect_copies_on_the_bundle(s);
  const DeviceTraffic t = *s.device_traffic();
  EXPECT_TRUE(t.round_trip_nodes.empty());
  // Only x goes up and only y and z come down.
  EXPECT_EQ(t.bytes_to_device, static_cast<size_t>(kInput.elements()) * sizeof(float));
  EXPECT_EQ(t.bytes_to_host, (72 + 72) * sizeof(float));
}

}  // namespace
}  // namespace nee
