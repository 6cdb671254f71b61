// A model of the resizes segmentation and detection heads make (a linear upsampling of a
// score map, a nearest one by sizes, a linear downsampling with align_corners), beside two
// the resize family leaves to the reference kernels (cubic, and a resize of the channel
// dim), runs from a default-schedule bundle, CPU and OpenCL (PoCL): the three on bundle
// kernels, the two on the reference kernels, every output as the reference kernels
// compute it (nearest exactly).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>

#include "default_bundles.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_string_attr;

const TensorType kInput{DType::f32, {1, 3, 5, 7}};

// x [1,3,5,7] -> up: linear x2 (pytorch_half_pixel) [1,3,10,14]; near: nearest to sizes
// [1,3,12,9] (asymmetric, floor); down: linear with align_corners to [1,3,3,4];
// cubic: cubic x2 [1,3,10,14]; wide: linear x2 over the channels [1,6,5,7].
std::string model_bytes() {
  OnnxModelBuilder m(13);
  m.input("x", kInput.shape)
      .output("up", {1, 3, 10, 14})
      .output("near", {1, 3, 12, 9})
      .output("down", {1, 3, 3, 4})
      .output("cubic", {1, 3, 10, 14})
      .output("wide", {1, 6, 5, 7});
  m.initializer("x2", make_f32({4}, {1, 1, 2, 2}));
  m.initializer("channels_x2", make_f32({4}, {1, 2, 1, 1}));
  m.initializer("near_sizes", make_i64({4}, {1, 3, 12, 9}));
  m.initializer("down_sizes", make_i64({4}, {1, 3, 3, 4}));
  onnx::NodeProto& up = m.node("Resize", {"x", "", "x2"}, {"up"}, "up");
  set_string_attr(up, "mode", "linear");
  set_string_attr(up, "coordinate_transformation_mode", "pytorch_half_pixel");
  onnx::NodeProto& near = m.node("Resize", {"x", "", "", "near_sizes"}, {"near"}, "near");
  set_string_attr(near, "mode", "nearest");
  set_string_attr(near, "coordinate_transformation_mode", "asymmetric");
  set_string_attr(near, "nearest_mode", "floor");
  onnx::NodeProto& down = m.node("Resize", {"x", "", "", "down_sizes"}, {"down"}, "down");
  set_string_attr(down, "mode", "linear");
  set_string_attr(down, "coordinate_transformation_mode", "align_corners");
  set_string_attr(m.node("Resize", {"x", "", "x2"}, {"cubic"}, "cubic"), "mode", "cubic");
  set_string_attr(m.node("Resize", {"x", "", "channels_x2"}, {"wide"}, "wide"), "mode", "linear");
  return m.bytes();
}

class ResizeBundle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<tuner_test::TempDir>("resizebundle");
    std::ofstream(model(), std::ios::binary) << model_bytes();
    test::build_default_bundles(*dir_, model(), {"cpu", "opencl"});
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string model() { return dir_->file("resizes.onnx"); }

  static Session session_on(const std::string& target) { return test::session_on_bundle(*dir_, model(), target); }

  // Runs `s` on a fresh random x against the reference kernels: nearest exactly, linear
  // within its 4-term rounding.
  static void run_and_check(Session& s, uint64_t seed) {
    Session reference(import_onnx(model()), {}, SessionOptions{optimize_graph});
    const Tensor x = random_tensor(kInput, seed);
    const auto got = s.run({{"x", x}});
    const auto want = reference.run({{"x", x}});
    for (const char* name : {"up", "near", "down", "cubic", "wide"}) {
      const Tensor& g = got.at(name);
      const Tensor& w = want.at(name);
      ASSERT_EQ(g.shape(), w.shape()) << name;
      double total = 0;
      for (int64_t i = 0; i < g.elements(); ++i) {
        if (std::string(name) == "near") {
          EXPECT_EQ(g.data_as<float>()[i], w.data_as<float>()[i]) << name << " " << i;
        } else {
          EXPECT_NEAR(g.data_as<float>()[i], w.data_as<float>()[i], 1e-6) << name << " " << i;
        }
        total += std::fabs(w.data_as<float>()[i]);
      }
      EXPECT_GT(total, 0) << name;
    }
  }

  static void expect_placements(const Session& s) {
    std::map<std::string, std::string> providers;
    for (const Placement& p : s.placements()) {
      if (p.op == "Resize") providers[p.node] = p.provider;
    }
    const std::map<std::string, std::string> want = {
        {"up", "bundle"}, {"near", "bundle"}, {"down", "bundle"}, {"cubic", "reference"}, {"wide", "reference"}};
    EXPECT_EQ(providers, want);
  }

  static std::unique_ptr<tuner_test::TempDir> dir_;
};

std::unique_ptr<tuner_test::TempDir> ResizeBundle::dir_;

TEST_F(ResizeBundle, CpuBundleResizesLikeTheReference) {
  Session s = session_on("cpu");
  run_and_check(s, 1);
  run_and_check(s, 2);
  expect_placements(s);
}

TEST_F(ResizeBundle, OpenClBundleResizesLikeTheReference) {
  Session s = session_on("opencl");
  run_and_check(s, 3);
  expect_placements(s);
}

}  // namespace
}  // namespace nee
