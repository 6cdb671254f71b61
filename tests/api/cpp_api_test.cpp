// NEE's C++ API (include/nee/nee.hpp) over libnee: handles, exceptions, both run forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nee/nee.hpp>

#include "onnx_model_builder.h"

namespace nee {
namespace {

// y = Relu(x) + 1 over x [batch, 3], batch symbolic.
std::string relu_plus_one_bytes() {
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"batch", "3"});
  m.output("y");
  m.initializer("one", test::make_f32({}, {1.0f}));
  m.node("Relu", {"x"}, {"r"}, "relu");
  m.node("Add", {"r", "one"}, {"y"}, "add");
  return m.bytes();
}

TEST(CppApi, RunsWithAllocatedAndWithCallersOutputs) {
  api::Env env(api::EnvOptions().threads(1).log_level(NEE_LOG_ERROR));
  const std::string bytes = relu_plus_one_bytes();
  api::Session session(env, bytes.data(), bytes.size(), api::SessionOptions().profiling(true));
  const std::vector<api::ValueInfo> inputs = session.inputs();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].name, "x");
  EXPECT_EQ(inputs[0].dims, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(inputs[0].dim_names, (std::vector<std::string>{"batch", ""}));

  std::vector<float> x = {-1.0f, 0.5f, 2.0f, -3.0f, 0.0f, 4.0f};
  api::Tensor in = api::Tensor::wrap(x, {2, 3});
  std::vector<api::Tensor> outs = session.run({{"x", &in}});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].dims(), (std::vector<int64_t>{2, 3}));
  const std::vector<float> want = {1.0f, 1.5f, 3.0f, 1.0f, 1.0f, 5.0f};
  const api::Span<float> got = outs[0].data<float>();
  EXPECT_EQ(std::vector<float>(got.begin(), got.end()), want);
  // Relu and Add run as one fused elementwise node.
  const std::vector<api::NodeTime> profile = session.profile();
  ASSERT_EQ(profile.size(), 1u);
  EXPECT_EQ(profile[0].op, "NeeElementwise");

  std::vector<float> y(6, 0.0f);
  api::Tensor into = api::Tensor::wrap(y, {2, 3});
  session.run({{"x", &in}}, {{"y", &into}});
  EXPECT_EQ(y, want);
}

TEST(CppApi, FailuresThrowWithNeesCodeAndMessage) {
  api::Env env;
  try {
    api::Session session(env, "/nonexistent/model.onnx");
    FAIL() << "a missing model made a session";
  } catch (const api::Exception& e) {
    EXPECT_EQ(e.code(), NEE_ERROR_INVALID_MODEL);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.onnx"), std::string::npos) << e.what();
  }
  const std::string bytes = relu_plus_one_bytes();
  api::Session session(env, bytes.data(), bytes.size());
  std::vector<int64_t> wrong(3, 1);
  api::Tensor in = api::Tensor::wrap(wrong, {1, 3});
  try {
    session.run({{"x", &in}});
    FAIL() << "an i64 input ran as f32";
  } catch (const api::Exception& e) {
    EXPECT_EQ(e.code(), NEE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("input 'x' is declared f32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(in.data<float>(), api::Exception);
  EXPECT_THROW(api::EnvOptions().providers("everything"), api::Exception);
}

}  // namespace
}  // namespace nee
