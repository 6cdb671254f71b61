// A GPU bundle's values stay on the device from kernel to kernel (OpenCL, which runs on
// the CPU through PoCL here): the session copies only the model's inputs in and its
// outputs out, uploads the weights once, keeps a Reshape of a device value on the
// device, names a host node that forced a round trip, and places the intermediates in
// one device arena by the session's memory plan; a kernel called again and again keeps
// its operands on the device.
//
// PoCL compiles kernels with LLVM 15, and libHalide brings LLVM 14; the two in one
// process crash. So nee-tune builds the bundles in its own process, and this test links
// only the runtime, which needs Halide's runtime header alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>

#include "core/subprocess.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"
#include "tests/tuner/temp_dir.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::set_attr;

constexpr size_t kInputBytes = 4 * 16 * sizeof(float);   // x
constexpr size_t kProductBytes = 8 * 8 * sizeof(float);  // the MatMul's output, its reversal, and y

// x -> Gemm + Relu (one NeeMatMul) -> Reshape [4,32] to [8,16] -> MatMul -> [Slice with
// step -1, reversing each row] -> Softmax -> y. NEE's strided copies take positive steps
// only, so the reference kernels run the reversal.
std::string model_bytes(bool reverse) {
  OnnxModelBuilder m;
  m.input("x", {4, 16}).output("y", {8, 8});
  m.initializer("w1", random_tensor({DType::f32, {16, 32}}, 11));
  m.initializer("b1", random_tensor({DType::f32, {32}}, 12));
  m.initializer("w2", random_tensor({DType::f32, {16, 8}}, 13));
  m.initializer("shape", test::make_i64({2}, {8, 16}));
  m.node("Gemm", {"x", "w1", "b1"}, {"h"}, "fc1");
  m.node("Relu", {"h"}, {"a"}, "relu");
  m.node("Reshape", {"a", "shape"}, {"r"}, "reshape");
  m.node("MatMul", {"r", "w2"}, {"p"}, "fc2");
  if (reverse) {
    m.initializer("starts", test::make_i64({1}, {-1}));
    m.initializer("ends", test::make_i64({1}, {-9}));
    m.initializer("axes", test::make_i64({1}, {1}));
    m.initializer("steps", test::make_i64({1}, {-1}));
    m.node("Slice", {"p", "starts", "ends", "axes", "steps"}, {"t"}, "reverse");
  }
  set_attr(m.node("Softmax", {reverse ? "t" : "p"}, {"y"}, "softmax"), "axis", int64_t{1});
  return m.bytes();
}

// x [4,16] -> six MatMuls by [16,16] weights -> Softmax -> y: six 256-byte
// intermediates, of which at most two are alive at once.
constexpr int kChainLinks = 6;
constexpr size_t kLinkBytes = 4 * 16 * sizeof(float);

std::string chain_bytes() {
  OnnxModelBuilder m;
  m.input("x", {4, 16}).output("y", {4, 16});
  std::string prev = "x";
  for (int i = 1; i <= kChainLinks; ++i) {
    const std::string w = "w" + std::to_string(i), h = "h" + std::to_string(i);
    m.initializer(w, random_tensor({DType::f32, {16, 16}}, 20 + i));
    m.node("MatMul", {prev, w}, {h}, "fc" + std::to_string(i));
    prev = h;
  }
  set_attr(m.node("Softmax", {prev}, {"y"}, "softmax"), "axis", int64_t{1});
  return m.bytes();
}

class DeviceResidency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<tuner_test::TempDir>("device");
    for (const std::string name : {"direct", "reversed", "chain"}) {
      std::ofstream(model(name), std::ios::binary) << (name == "chain" ? chain_bytes() : model_bytes(name == "reversed"));
      const ProcessResult r = run_process({NEE_TUNE_PATH, model(name), "--target", "opencl", "--trials", "0", "--db",
                                           dir_->file(name + ".db"), "--bundle", dir_->file(name)},
                                          300, true);
      ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
    }
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string model(const std::string& name) { return dir_->file(name + ".onnx"); }

  static Session session_on(const std::string& name) {
    BundleLoadOptions load;
    load.model_path = model(name);
    load.expected_kind = TargetKind::opencl;
    std::vector<std::unique_ptr<KernelProvider>> providers;
    providers.push_back(make_bundle_provider(KernelBundle::load(dir_->file(name), load)));
    return Session(import_onnx(model(name)), std::move(providers), SessionOptions{optimize_graph});
  }

  // Runs `s` on a fresh random x and checks y against the reference kernels.
  static void run_and_check(Session& s, const std::string& name, uint64_t seed) {
    Session reference(import_onnx(model(name)), {}, SessionOptions{optimize_graph});
    const Tensor x = random_tensor({DType::f32, {4, 16}}, seed);
    const Tensor got = s.run({{"x", x}}).at("y");
    const Tensor want = reference.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    const float uniform = 1.0f / static_cast<float>(want.shape().back());
    double spread = 0;
    for (int64_t i = 0; i < got.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5) << i;
      spread += std::fabs(want.data_as<float>()[i] - uniform);
    }
    EXPECT_GT(spread, 1e-3);  // not a uniform softmax, which would hide a zero input
  }

  static std::unique_ptr<tuner_test::TempDir> dir_;
};

std::unique_ptr<tuner_test::TempDir> DeviceResidency::dir_;

TEST_F(DeviceResidency, ValuesStayOnTheDeviceBetweenKernels) {
  Session s = session_on("direct");
  run_and_check(s, "direct", 1);
  for (const Placement& p : s.placements()) {
    if (p.op != "Reshape") {
      EXPECT_EQ(p.provider, "bundle") << p.node;
    }
  }
  const std::optional<DeviceTraffic> first = s.device_traffic();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->round_trip_nodes.empty());
  // The weights go up on the first run only.
  EXPECT_GT(first->bytes_to_device, kInputBytes + 16 * 32 * sizeof(float));
  EXPECT_EQ(first->bytes_to_host, kProductBytes);

  run_and_check(s, "direct", 2);
  const DeviceTraffic second = *s.device_traffic();
  EXPECT_EQ(second.bytes_to_device, kInputBytes);
  EXPECT_EQ(second.bytes_to_host, kProductBytes);
  EXPECT_TRUE(second.round_trip_nodes.empty());
}

// Profiles wait for each device kernel (Session::wait_for_each_device_kernel), so that a
// node's time is its kernel's run; the values stay on the device all the same.
TEST_F(DeviceResidency, WaitingForEachKernelKeepsTheValuesOnTheDevice) {
  Session s = session_on("direct");
  run_and_check(s, "direct", 5);
  s.wait_for_each_device_kernel(true);
  run_and_check(s, "direct", 6);
  const DeviceTraffic waited = *s.device_traffic();
  EXPECT_EQ(waited.bytes_to_device, kInputBytes);
  EXPECT_EQ(waited.bytes_to_host, kProductBytes);
  EXPECT_TRUE(waited.round_trip_nodes.empty());
  s.wait_for_each_device_kernel(false);
  run_and_check(s, "direct", 7);
}

TEST_F(DeviceResidency, AHostNodeBetweenDeviceKernelsIsARoundTrip) {
  Session s = session_on("reversed");
  run_and_check(s, "reversed", 3);
  run_and_check(s, "reversed", 4);
  for (const Placement& p : s.placements()) {
    if (p.op == "Slice") {
      EXPECT_EQ(p.provider, "reference");
    }
  }
  const DeviceTraffic t = *s.device_traffic();
  EXPECT_EQ(t.round_trip_nodes, std::vector<std::string>{"reverse"});
  // The MatMul's output comes back for the reversal, whose output goes up for the
  // Softmax; y comes back at the end.
  EXPECT_EQ(t.bytes_to_host, 2 * kProductBytes);
  EXPECT_EQ(t.bytes_to_device, kInputBytes + kProductBytes);
}

TEST_F(DeviceResidency, IntermediatesShareOneDeviceArenaAsPlanned) {
  Session s = session_on("chain");
  run_and_check(s, "chain", 6);
  run_and_check(s, "chain", 7);
  for (const Placement& p : s.placements()) EXPECT_EQ(p.provider, "bundle") << p.node;
  const MemoryPlan& plan = s.memory_plan();
  // Each link padded to the device alignment (512 bytes); two alive at once.
  EXPECT_EQ(plan.unshared_bytes, kChainLinks * 512u);
  EXPECT_EQ(plan.arena_bytes, 2 * 512u);
  const DeviceTraffic t = *s.device_traffic();
  // The arena, the weights, x and y: the links hold no allocations of their own.
  EXPECT_EQ(t.resident_bytes, plan.arena_bytes + kChainLinks * 16 * 16 * sizeof(float) + 2 * kLinkBytes);
  EXPECT_EQ(t.bytes_to_device, kLinkBytes);
  EXPECT_EQ(t.bytes_to_host, kLinkBytes);
}

// How nee-measure times a GPU kernel: its operands stay on the device between calls.
// The inputs go up on the first call only, so a host change after it is not seen, and
// the output stays on the device until it is asked for.
TEST_F(DeviceResidency, RepeatedKernelCallsReuseTheDeviceOperands) {
  BundleLoadOptions load;
  load.model_path = model("chain");
  load.expected_kind = TargetKind::opencl;
  const std::shared_ptr<KernelBundle> bundle = KernelBundle::load(dir_->file("chain"), load);
  ASSERT_EQ(bundle->manifest().variants.size(), 1u);  // a GPU bundle has one
  const std::vector<BundleKernelEntry>& kernels = bundle->manifest().variants.front().kernels;
  const auto entry = std::find_if(kernels.begin(), kernels.end(),
                                  [](const BundleKernelEntry& e) { return e.workload.op == "matmul"; });
  ASSERT_NE(entry, kernels.end());
  const HalideKernel* kernel = bundle->find(entry->workload.key());
  ASSERT_NE(kernel, nullptr);
  Tensor a = random_tensor(entry->workload.inputs.at(0), 31);
  const Tensor b = random_tensor(entry->workload.inputs.at(1), 32);
  ASSERT_EQ(a.shape(), (std::vector<int64_t>{4, 16}));
  ASSERT_EQ(b.shape(), (std::vector<int64_t>{16, 16}));
  std::vector<float> want(4 * 16, 0.0f);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 16; ++j) {
      for (int k = 0; k < 16; ++k) want[i * 16 + j] += a.data_as<float>()[i * 16 + k] * b.data_as<float>()[k * 16 + j];
    }
  }
  Tensor out(entry->workload.output);
  float* got = out.data_as<float>();
  std::fill(got, got + out.elements(), NAN);

  ResidentKernelCall call(*kernel, {&a, &b}, out);
  call();
  EXPECT_TRUE(std::isnan(got[0]));  // the product is still on the device
  std::fill(a.data_as<float>(), a.data_as<float>() + a.elements(), 0.0f);
  call();
  call.copy_output_to_host();
  for (int i = 0; i < 4 * 16; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  EXPECT_GT(std::fabs(got[0]) + std::fabs(got[17]), 1e-3);  // not the zeroed input's product
}

TEST_F(DeviceResidency, HostSessionsReportNoDeviceTraffic) {
  Session reference(import_onnx(model("direct")), {}, SessionOptions{optimize_graph});
  reference.run({{"x", random_tensor({DType::f32, {4, 16}}, 5)}});
  EXPECT_FALSE(reference.device_traffic());
}

}  // namespace
}  // namespace nee
