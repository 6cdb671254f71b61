// NEE's C API (include/nee/nee.h) as an application uses it: through libnee.so, on a
// small model built here: y = Relu(x W + b) with x [batch, 4] (symbolic batch), W [4, 3],
// and on a deploy artifact of it that nee-tune writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nee/nee.h>

#include "onnx_model_builder.h"

namespace nee {
namespace {

constexpr int64_t kIn = 4, kOut = 3;

std::vector<float> weights() { return {0.5f, -1.0f, 0.25f, 1.5f, 0.75f, -0.5f, -2.0f, 1.0f, 0.125f, 0.3f, 0.2f, 0.1f}; }
std::vector<float> bias() { return {0.1f, -0.2f, 0.3f}; }

std::string model_bytes() {
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"batch", "4"});
  m.output("y");
  m.initializer("W", test::make_f32({kIn, kOut}, weights()));
  m.initializer("b", test::make_f32({kOut}, bias()));
  m.node("MatMul", {"x", "W"}, {"xw"}, "matmul");
  m.node("Add", {"xw", "b"}, {"z"}, "add");
  m.node("Relu", {"z"}, {"y"}, "relu");
  return m.bytes();
}

std::vector<float> expected(const std::vector<float>& x) {
  const std::vector<float> w = weights(), b = bias();
  const size_t rows = x.size() / kIn;
  std::vector<float> y(rows * kOut);
  for (size_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < kOut; ++o) {
      float s = b[o];
      for (int64_t k = 0; k < kIn; ++k) s += x[r * kIn + k] * w[k * kOut + o];
      y[r * kOut + o] = std::max(s, 0.0f);
    }
  }
  return y;
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& f : v) f = u(rng);
  return v;
}

// Asserts that a call succeeded, printing its message otherwise.
void ok(NeeStatus* s) {
  const std::string message = nee_status_message(s);
  const NeeCode code = nee_status_code(s);
  nee_status_free(s);
  ASSERT_EQ(code, NEE_OK) << message;
}

// The failed call's code and message.
std::pair<NeeCode, std::string> failure(NeeStatus* s) {
  std::pair<NeeCode, std::string> r{nee_status_code(s), nee_status_message(s)};
  nee_status_free(s);
  return r;
}

class CApi : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("nee_c_api_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "model.onnx").string();
    std::ofstream(path_, std::ios::binary) << model_bytes();
    ok(nee_env_create(nullptr, &env_));
  }
  void TearDown() override {
    nee_env_free(env_);
    std::filesystem::remove_all(dir_);
  }

  NeeSession* session(bool profiling = false) {
    NeeSessionOptions* options = nullptr;
    ok(nee_session_options_create(&options));
    ok(nee_session_options_set_profiling(options, profiling ? 1 : 0));
    NeeSession* s = nullptr;
    ok(nee_session_create(env_, path_.c_str(), options, &s));
    nee_session_options_free(options);
    return s;
  }

  // Runs `batch` rows of `x` through `s` into a NEE-allocated output; the call's status.
  NeeStatus* run_rows(NeeSession* s, std::vector<float>& x, int64_t batch, NeeTensor** out) {
    const int64_t dims[] = {batch, kIn};
    NeeTensor* in = nullptr;
    ok(nee_tensor_wrap(NEE_DTYPE_F32, dims, 2, x.data(), x.size() * sizeof(float), &in));
    const char* names[] = {"x"};
    const NeeTensor* inputs[] = {in};
    NeeStatus* status = nee_session_run(s, names, inputs, 1, nullptr, 1, out);
    nee_tensor_free(in);
    return status;
  }

  // Runs one batch through `s` into a NEE-allocated output and checks it.
  void run_and_check(NeeSession* s, int64_t batch, unsigned seed) {
    std::vector<float> x = random_floats(static_cast<size_t>(batch * kIn), seed);
    NeeTensor* out = nullptr;
    ok(run_rows(s, x, batch, &out));
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(nee_tensor_rank(out), 2u);
    EXPECT_EQ(nee_tensor_dims(out)[0], batch);
    EXPECT_EQ(nee_tensor_dims(out)[1], kOut);
    const std::vector<float> want = expected(x);
    const float* got = static_cast<const float*>(nee_tensor_data(out));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
    nee_tensor_free(out);
  }

  // Runs `batch` rows of ones through `s`, which must fail without an output; the
  // failure's code and message.
  std::pair<NeeCode, std::string> failed_run(NeeSession* s, int64_t batch) {
    std::vector<float> x(static_cast<size_t>(batch * kIn), 1.0f);
    NeeTensor* out = nullptr;
    const auto r = failure(run_rows(s, x, batch, &out));
    EXPECT_EQ(out, nullptr);
    return r;
  }

  std::filesystem::path dir_;
  std::string path_;
  NeeEnv* env_ = nullptr;
};

TEST_F(CApi, VersionsAreNeesAndTheHeaders) {
  EXPECT_EQ(nee_api_version(), NEE_API_VERSION);
  EXPECT_EQ(std::string(nee_version()), NEE_VERSION);
  EXPECT_EQ(nee_dtype_size(NEE_DTYPE_F32), 4u);
  EXPECT_EQ(nee_dtype_size(NEE_DTYPE_BOOL), 1u);
  EXPECT_EQ(nee_dtype_size(NEE_DTYPE_STRING), 0u);
}

TEST_F(CApi, MetadataNamesTypesAndSymbolicDims) {
  NeeSession* s = session();
  ASSERT_EQ(nee_session_input_count(s), 1u);
  ASSERT_EQ(nee_session_output_count(s), 1u);
  NeeValueInfo info;
  ok(nee_session_input_info(s, 0, &info));
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, NEE_DTYPE_F32);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_STREQ(info.dim_names[0], "batch");
  EXPECT_EQ(info.dims[1], kIn);
  EXPECT_EQ(info.dim_names[1], nullptr);
  ok(nee_session_output_info(s, 0, &info));
  EXPECT_STREQ(info.name, "y");
  EXPECT_EQ(info.rank, -1);  // the builder declares no output shape
  const auto [code, message] = failure(nee_session_input_info(s, 1, &info));
  EXPECT_EQ(code, NEE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("has 1 input"), std::string::npos) << message;
  nee_session_free(s);
}

TEST_F(CApi, RunsEachBatchSizeTheSymbolicDimTakes) {
  NeeSession* s = session();
  run_and_check(s, 1, 1);
  run_and_check(s, 5, 2);
  run_and_check(s, 1, 3);
  nee_session_free(s);
}

TEST_F(CApi, WritesIntoTheCallersOutputBuffer) {
  NeeSession* s = session();
  std::vector<float> x = random_floats(2 * kIn, 7), y(2 * kOut, -99.0f);
  const int64_t in_dims[] = {2, kIn}, out_dims[] = {2, kOut};
  NeeTensor *in = nullptr, *out = nullptr;
  ok(nee_tensor_wrap(NEE_DTYPE_F32, in_dims, 2, x.data(), x.size() * sizeof(float), &in));
  ok(nee_tensor_wrap(NEE_DTYPE_F32, out_dims, 2, y.data(), y.size() * sizeof(float), &out));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  const NeeTensor* inputs[] = {in};
  NeeTensor* outputs[] = {out};
  ok(nee_session_run(s, in_names, inputs, 1, out_names, 1, outputs));
  EXPECT_EQ(outputs[0], out);  // the caller's tensor, not a new one
  EXPECT_EQ(nee_tensor_data(out), static_cast<void*>(y.data()));
  const std::vector<float> want = expected(x);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5f) << i;

  // A buffer of another shape is refused by name, and left as it was.
  std::vector<float> small(kOut, -7.0f);
  const int64_t small_dims[] = {1, kOut};
  NeeTensor* wrong = nullptr;
  ok(nee_tensor_wrap(NEE_DTYPE_F32, small_dims, 2, small.data(), small.size() * sizeof(float), &wrong));
  NeeTensor* wrong_outputs[] = {wrong};
  const auto [code, message] = failure(nee_session_run(s, in_names, inputs, 1, out_names, 1, wrong_outputs));
  EXPECT_EQ(code, NEE_ERROR_RUNTIME);
  EXPECT_NE(message.find("output 'y' is f32[2,3]"), std::string::npos) << message;
  EXPECT_EQ(small[0], -7.0f);
  nee_tensor_free(wrong);
  nee_tensor_free(in);
  nee_tensor_free(out);
  nee_session_free(s);
}

TEST_F(CApi, BadInputsAreNamedBeforeAnythingRuns) {
  NeeSession* s = session();
  std::vector<float> x(kIn, 1.0f);
  std::vector<int32_t> xi(kIn, 1);
  const int64_t good[] = {1, kIn}, wide[] = {1, kIn + 1};
  NeeTensor *f = nullptr, *i32 = nullptr, *bad_shape = nullptr;
  ok(nee_tensor_wrap(NEE_DTYPE_F32, good, 2, x.data(), x.size() * sizeof(float), &f));
  ok(nee_tensor_wrap(NEE_DTYPE_I32, good, 2, xi.data(), xi.size() * sizeof(int32_t), &i32));
  std::vector<float> x5(kIn + 1, 1.0f);
  ok(nee_tensor_wrap(NEE_DTYPE_F32, wide, 2, x5.data(), x5.size() * sizeof(float), &bad_shape));
  NeeTensor* out = nullptr;
  const char* x_name[] = {"x"};
  const char* z_name[] = {"z"};
  auto run = [&](const char** names, NeeTensor* t, size_t count) {
    const NeeTensor* inputs[] = {t};
    return failure(nee_session_run(s, names, inputs, count, nullptr, 1, &out));
  };
  auto expect = [](const std::pair<NeeCode, std::string>& r, const std::string& words) {
    EXPECT_EQ(r.first, NEE_ERROR_INVALID_ARGUMENT) << r.second;
    EXPECT_NE(r.second.find(words), std::string::npos) << r.second;
  };
  expect(run(x_name, i32, 1), "input 'x' is declared f32; the tensor given is i32[1,4]");
  expect(run(x_name, bad_shape, 1), "input 'x' is declared [batch,4]; the tensor given is f32[1,5]");
  expect(run(z_name, f, 1), "'z' is not an input of the model (its inputs: 'x')");
  expect(run(x_name, f, 0), "input 'x' is not given");
  EXPECT_EQ(out, nullptr);  // no output on failure
  expect(failure(nee_session_run(nullptr, x_name, nullptr, 0, nullptr, 0, nullptr)), "session is NULL");
  // A buffer of the wrong size for its dims.
  NeeTensor* t = nullptr;
  expect(failure(nee_tensor_wrap(NEE_DTYPE_F32, good, 2, x.data(), 3, &t)), "takes 16 bytes; the buffer has 3");
  EXPECT_EQ(t, nullptr);
  expect(failure(nee_tensor_create(static_cast<NeeDType>(99), good, 2, &t)), "99 is not a NeeDType");
  nee_tensor_free(f);
  nee_tensor_free(i32);
  nee_tensor_free(bad_shape);
  nee_session_free(s);
}

TEST_F(CApi, BadModelsAndBundlesAreNamed) {
  NeeSession* s = nullptr;
  auto r = failure(nee_session_create(env_, (dir_ / "missing.onnx").c_str(), nullptr, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_MODEL);
  EXPECT_NE(r.second.find("missing.onnx"), std::string::npos) << r.second;
  const char garbage[] = "not a model";
  r = failure(nee_session_create_from_memory(env_, garbage, sizeof garbage, nullptr, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_MODEL);
  NeeSessionOptions* options = nullptr;
  ok(nee_session_options_create(&options));
  ok(nee_session_options_set_bundle(options, (dir_ / "no-bundle").c_str()));
  r = failure(nee_session_create(env_, path_.c_str(), options, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_BUNDLE);
  EXPECT_NE(r.second.find("no-bundle"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  nee_session_options_free(options);
  NeeEnvOptions* env_options = nullptr;
  ok(nee_env_options_create(&env_options));
  r = failure(nee_env_options_set_providers(env_options, "gpu"));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("'gpu'"), std::string::npos) << r.second;
  r = failure(nee_env_options_set_threads(env_options, -1));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_ARGUMENT);
  nee_env_options_free(env_options);
}

// A deploy artifact (nee-tune --deploy, for batch 2) is a session too: the shapes it was
// written for, its own bundle, its parts checked.
TEST_F(CApi, ADeployArtifactIsASessionOfItsShapes) {
  const std::string artifact = (dir_ / "app.nee").string();
  const std::string command = std::string(NEE_TUNE_PATH) + " " + path_ + " --trials 0 --isa host --input-shape x=2x4" +
                              " --db " + (dir_ / "t.db").string() + " --bundle " + (dir_ / "bundle").string() +
                              " --deploy " + artifact + " > " + (dir_ / "tune.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  NeeSession* s = nullptr;
  ok(nee_session_create(env_, artifact.c_str(), nullptr, &s));
  NeeValueInfo info;
  ok(nee_session_input_info(s, 0, &info));
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], 2) << "the artifact's batch is fixed";
  run_and_check(s, 2, 21);
  auto r = failed_run(s, 3);
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("input 'x'"), std::string::npos) << r.second;
  nee_session_free(s);

  NeeSessionOptions* options = nullptr;
  ok(nee_session_options_create(&options));
  ok(nee_session_options_set_bundle(options, (dir_ / "bundle").c_str()));
  r = failure(nee_session_create(env_, artifact.c_str(), options, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.second.find("holds its own bundle"), std::string::npos) << r.second;
  nee_session_options_free(options);

  std::fstream weights(artifact + "/weights.bin", std::ios::in | std::ios::out | std::ios::binary);
  weights.seekp(8);
  weights.put('\x7f');
  weights.close();
  r = failure(nee_session_create(env_, artifact.c_str(), nullptr, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_MODEL);
  EXPECT_NE(r.second.find("weights.bin is damaged"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
}

TEST_F(CApi, MemoryBoundAndTrustedKeysApplyToTheSession) {
  NeeSessionOptions* options = nullptr;
  ok(nee_session_options_create(&options));
  ok(nee_session_options_set_max_memory(options, 16));  // W alone takes 48 bytes
  NeeSession* s = nullptr;
  // The model is imported for its shapes at the first run, so that is where the bound
  // refuses it.
  ok(nee_session_create(env_, path_.c_str(), options, &s));
  auto r = failed_run(s, 1);
  EXPECT_EQ(r.first, NEE_ERROR_RUNTIME);
  EXPECT_NE(r.second.find("'W'"), std::string::npos) << r.second;
  nee_session_free(s);
  ok(nee_session_options_set_max_memory(options, 1 << 20));
  ok(nee_session_create(env_, path_.c_str(), options, &s));
  run_and_check(s, 2, 21);
  nee_session_free(s);
  s = nullptr;
  // Keys are read before any of the bundle is: a missing key file is named.
  ok(nee_session_options_set_bundle(options, dir_.c_str()));
  ok(nee_session_options_add_trusted_keys(options, (dir_ / "missing.pub.pem").c_str()));
  r = failure(nee_session_create(env_, path_.c_str(), options, &s));
  EXPECT_EQ(r.first, NEE_ERROR_INVALID_BUNDLE);
  EXPECT_NE(r.second.find("missing.pub.pem"), std::string::npos) << r.second;
  EXPECT_EQ(s, nullptr);
  nee_session_options_free(options);
}

// Outputs that are a constant of the model or the input itself (Identity) come as copies:
// writing into them changes neither the next run nor the caller's input.
TEST_F(CApi, OutputsThatAreConstantsOrInputsAreCopies) {
  test::OnnxModelBuilder m;
  m.input("x", {1, 2}).output("c").output("same").output("sum");
  m.initializer("k", test::make_f32({1, 2}, {1.0f, 2.0f}));
  m.node("Identity", {"k"}, {"c"}, "constant_out");
  m.node("Identity", {"x"}, {"same"}, "input_out");
  m.node("Add", {"x", "k"}, {"sum"}, "add");
  const std::string bytes = m.bytes();
  NeeSession* s = nullptr;
  ok(nee_session_create_from_memory(env_, bytes.data(), bytes.size(), nullptr, &s));
  std::vector<float> x = {10.0f, 20.0f};
  const int64_t dims[] = {1, 2};
  NeeTensor* in = nullptr;
  ok(nee_tensor_wrap(NEE_DTYPE_F32, dims, 2, x.data(), x.size() * sizeof(float), &in));
  const char* names[] = {"x"};
  const NeeTensor* inputs[] = {in};
  for (int run = 0; run < 2; ++run) {
    NeeTensor* outs[3] = {nullptr, nullptr, nullptr};
    ok(nee_session_run(s, names, inputs, 1, nullptr, 3, outs));
    float* c = static_cast<float*>(nee_tensor_data(outs[0]));
    float* same = static_cast<float*>(nee_tensor_data(outs[1]));
    const float* sum = static_cast<const float*>(nee_tensor_data(outs[2]));
    EXPECT_EQ(c[0], 1.0f) << run;
    EXPECT_EQ(same[0], 10.0f) << run;
    EXPECT_EQ(sum[1], 22.0f) << run;
    EXPECT_NE(static_cast<void*>(same), static_cast<void*>(x.data()));
    c[0] = 100.0f;
    same[0] = -1.0f;
    for (NeeTensor* t : outs) nee_tensor_free(t);
  }
  EXPECT_EQ(x[0], 10.0f);
  nee_tensor_free(in);
  nee_session_free(s);
}

TEST_F(CApi, ASessionFromMemoryRunsAsFromItsFile) {
  const std::string bytes = model_bytes();
  NeeSession* s = nullptr;
  ok(nee_session_create_from_memory(env_, bytes.data(), bytes.size(), nullptr, &s));
  run_and_check(s, 3, 11);
  nee_session_free(s);
}

TEST_F(CApi, ProfilingRecordsEveryNodeOfTheLastRun) {
  NeeSession* plain = session(false);
  run_and_check(plain, 1, 4);
  EXPECT_EQ(nee_session_profile_count(plain), 0u);
  nee_session_free(plain);

  NeeSession* s = session(true);
  run_and_check(s, 2, 5);
  const size_t n = nee_session_profile_count(s);
  ASSERT_GE(n, 1u);
  for (size_t i = 0; i < n; ++i) {
    NeeNodeTime t;
    ok(nee_session_profile_entry(s, i, &t));
    EXPECT_STRNE(t.node, "");
    EXPECT_STREQ(t.provider, "reference");  // no bundle
    EXPECT_GE(t.microseconds, 0.0);
  }
  NeeNodeTime t;
  EXPECT_EQ(failure(nee_session_profile_entry(s, n, &t)).first, NEE_ERROR_INVALID_ARGUMENT);
  nee_session_free(s);
}

// Several threads run one session at once, each with its own inputs and batch size, and
// check every output.
TEST_F(CApi, OneSessionRunsFromSeveralThreadsAtOnce) {
  NeeSession* s = session();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([this, s, t] {
      for (unsigned i = 0; i < 25; ++i) run_and_check(s, 1 + (t + i) % 3, 100 * t + i);
    });
  }
  for (std::thread& t : threads) t.join();
  nee_session_free(s);
}

}  // namespace
}  // namespace nee
