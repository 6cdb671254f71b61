// libnee's ONNX front end (api/onnx_frontend.h) from an application's side: a front end
// missing or from another build gives a status naming the file and the problem, and one
// found later (the file installed in between) is loaded then. One test in a process of
// its own, since a process keeps the first front end it loads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <nee/nee.h>

#include "onnx_model_builder.h"

namespace nee {
namespace {

std::string relu_model() {
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"2"});
  m.output("y");
  m.node("Relu", {"x"}, {"y"}, "relu");
  return m.bytes();
}

// The status of creating a session from `model`, and its message ("" for NEE_OK).
std::pair<NeeCode, std::string> create(NeeEnv* env, const std::string& model) {
  NeeSession* session = nullptr;
  NeeStatus* status = nee_session_create_from_memory(env, model.data(), model.size(), nullptr, &session);
  std::pair<NeeCode, std::string> result{nee_status_code(status), status ? nee_status_message(status) : ""};
  nee_status_free(status);
  nee_session_free(session);
  return result;
}

TEST(OnnxFrontend, MissingOrForeignFrontEndsAreNamedAndAFrontEndInstalledLaterLoads) {
  NeeEnv* env = nullptr;
  ASSERT_EQ(nee_status_code(nee_env_create(nullptr, &env)), NEE_OK);
  const std::string model = relu_model();

  setenv("NEE_ONNX_FRONTEND", "/nonexistent/libnee-onnx.so", 1);
  auto [code, message] = create(env, model);
  EXPECT_EQ(code, NEE_ERROR_RUNTIME);
  EXPECT_NE(message.find("ONNX front end, '/nonexistent/libnee-onnx.so'"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot load it"), std::string::npos) << message;

  setenv("NEE_ONNX_FRONTEND", NEE_OTHER_BUILD_FRONTEND, 1);
  std::tie(code, message) = create(env, model);
  EXPECT_EQ(code, NEE_ERROR_RUNTIME);
  EXPECT_NE(message.find("comes from another build of NEE (build id another build"), std::string::npos) << message;

  unsetenv("NEE_ONNX_FRONTEND");  // the front end beside libnee
  std::tie(code, message) = create(env, model);
  EXPECT_EQ(code, NEE_OK) << message;
  nee_env_free(env);
}

}  // namespace
}  // namespace nee
