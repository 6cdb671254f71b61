// A deploy artifact (nee-tune --deploy) runs the model with no import and no graph pass:
// its outputs are those of the model and its bundle, its graph is the optimized one
// (convolution weights already blocked, read in place from the mapped weights at 64-byte
// alignment), a missing, cut, damaged, replaced or foreign part is refused by name, and
// under trusted keys only an artifact whose deploy.json a trusted key signed loads.
//
// nee-tune writes the bundle and the artifact in its own process; this test links the
// runtime only, as a deployment does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/deploy/deploy_artifact.h"
#include "runtime/deploy/deployed_model.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"
#include "test_key_pair.h"
#include "tests/tuner/temp_dir.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;
using test::set_attr;

const TensorType kInput{DType::f32, {1, 16, 8, 8}};

// x [1,16,8,8] -> Conv 3x3 to 32 channels + Relu -> Conv 1x1 -> GlobalAveragePool ->
// Flatten -> Gemm to 10 (transposed weights) -> y [1,10]; with `batch_dim`, x is
// [batch_dim,16,8,8] with that symbolic first dim.
std::string model_bytes(const std::string& batch_dim = "") {
  OnnxModelBuilder m;
  if (batch_dim.empty()) {
    m.input("x", kInput.shape).output("y", {1, 10});
  } else {
    m.input("x", onnx::TensorProto::FLOAT, {batch_dim, "16", "8", "8"}).output("y", onnx::TensorProto::FLOAT);
  }
  m.initializer("w1", random_tensor({DType::f32, {32, 16, 3, 3}}, 1));
  m.initializer("b1", random_tensor({DType::f32, {32}}, 2));
  m.initializer("w2", random_tensor({DType::f32, {32, 32, 1, 1}}, 3));
  m.initializer("w3", random_tensor({DType::f32, {10, 32}}, 4));
  m.initializer("b3", random_tensor({DType::f32, {10}}, 5));
  set_attr(m.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"}, "relu1");
  m.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  m.node("GlobalAveragePool", {"c2"}, {"p"}, "pool");
  m.node("Flatten", {"p"}, {"f"}, "flatten");
  set_attr(m.node("Gemm", {"f", "w3", "b3"}, {"y"}, "head"), "transB", int64_t{1});
  return m.bytes();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class DeployArtifact : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<tuner_test::TempDir>("deploy");
    std::ofstream(model(), std::ios::binary) << model_bytes();
    const ProcessResult r =
        run_process({NEE_TUNE_PATH, model(), "--trials", "0", "--isa", "host", "--db", dir_->file("t.db"), "--bundle",
                     dir_->file("bundle"), "--deploy", dir_->file("app.nee")},
                    300, true);
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
    test::write_ed25519_key_pair(dir_->file("key.pem"), dir_->file("key.pub.pem"));
    test::write_ed25519_key_pair(dir_->file("other.pem"), dir_->file("other.pub.pem"));
    const ProcessResult signed_run =
        run_process({NEE_TUNE_PATH, model(), "--trials", "0", "--isa", "host", "--db", dir_->file("t.db"), "--bundle",
                     dir_->file("signed-bundle"), "--sign", dir_->file("key.pem"), "--deploy", dir_->file("signed.nee")},
                    300, true);
    ASSERT_TRUE(signed_run.exited && signed_run.exit_code == 0) << signed_run.output;
  }

  static DeployLoadOptions trusting(const std::string& public_key) {
    DeployLoadOptions options;
    options.bundle.trusted_keys = std::make_shared<const TrustedKeys>(TrustedKeys::load({dir_->file(public_key)}));
    return options;
  }
  static void TearDownTestSuite() { dir_.reset(); }

  void SetUp() override {
    copy_ = dir_->file(std::string("copy-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(copy_);
    fs::copy(dir_->file("app.nee"), copy_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(copy_); }

  static std::string model() { return dir_->file("net.onnx"); }

  // The message load_deploy_artifact throws for the copy, or a failure when it loads.
  std::string load_error() const {
    try {
      load_deploy_artifact(copy_, {});
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "the tampered artifact was loaded";
    return "";
  }

  static std::unique_ptr<tuner_test::TempDir> dir_;
  std::string copy_;
};

std::unique_ptr<tuner_test::TempDir> DeployArtifact::dir_;

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(DeployArtifact, RunsLikeTheModelAndItsBundle) {
  ASSERT_TRUE(is_deploy_artifact(copy_));
  EXPECT_EQ(deploy_artifact_inputs(copy_), std::vector<std::string>{"x"});
  DeployedModel deployed = load_deploy_artifact(copy_, {});
  // The graph is the optimized one: fused convolutions and Linear layer, weights blocked.
  int fused = 0;
  ASSERT_EQ(deployed.graphs.size(), 1u);
  for (const Node& n : deployed.graphs[0].nodes()) {
    EXPECT_NE(n.op, "Conv") << "an unfused conv: the graph passes did not run before the artifact was written";
    EXPECT_NE(n.op, "Gemm");
    if (n.op == "NeeConv") {
      ++fused;
      const Tensor* w = deployed.graphs[0].constant(n.inputs[1]);
      ASSERT_NE(w, nullptr);
      EXPECT_EQ(w->shape().size(), 5u) << "weights in the blocked layout the kernels read";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(w->data()) % 64, 0u) << "read in place, 64-byte aligned";
    }
  }
  EXPECT_EQ(fused, 2);
  std::unique_ptr<Session> session = make_deployed_session(std::move(deployed), {});
  for (const Placement& p : session->placements()) {
    if (p.op == "NeeConv" || p.op == "NeeMatMul") {
      EXPECT_EQ(p.provider, "bundle") << p.node;
    }
  }

  BundleLoadOptions load;
  load.model_path = model();
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(KernelBundle::load(dir_->file("bundle"), load)));
  Session original(import_onnx(model()), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model()), {}, SessionOptions{optimize_graph});
  for (uint64_t seed : {11, 12}) {
    const Tensor x = random_tensor(kInput, seed);
    const Tensor got = session->run({{"x", x}}).at("y");
    const Tensor same = original.run({{"x", x}}).at("y");
    const Tensor want = reference.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    double spread = 0;
    for (int64_t i = 0; i < got.elements(); ++i) {
      EXPECT_EQ(got.data_as<float>()[i], same.data_as<float>()[i]) << "the same kernels on the same weights";
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4 * (1 + std::fabs(want.data_as<float>()[i])));
      spread += std::fabs(want.data_as<float>()[i]);
    }
    EXPECT_GT(spread, 1e-3);
  }
}

// One artifact for several sets of input shapes (nee-tune --input-shape, once per set):
// a graph for each, the weights they share stored once; a session takes the graph of its
// inputs' shapes, and shapes none was written for are refused with the sets it holds.
TEST_F(DeployArtifact, HoldsAGraphPerSetOfInputShapes) {
  const std::string batched = dir_->file("batched.onnx");
  std::ofstream(batched, std::ios::binary) << model_bytes("N");
  const std::string app = dir_->file("batched.nee");
  const ProcessResult r =
      run_process({NEE_TUNE_PATH, batched, "--trials", "0", "--isa", "host", "--db", dir_->file("t.db"), "--bundle",
                   dir_->file("batched-bundle"), "--input-shape", "x=1x16x8x8", "--input-shape", "x=3x16x8x8",
                   "--deploy", app},
                  300, true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  EXPECT_HAS(r.output, "2 graph(s)");
  DeployedModel deployed = load_deploy_artifact(app, {});
  ASSERT_EQ(deployed.graphs.size(), 2u);
  EXPECT_EQ(deployed.graphs[1].type_of("x").shape, (std::vector<int64_t>{3, 16, 8, 8}));
  // The one-set artifact of the same weights: the second graph added no weight bytes, only
  // the shape its pooled [3, 32, 1, 1] is viewed in as NCHW (4 int64; the pool reads conv2's
  // output blocked, GraphOptions::block_global_pool_inputs).
  EXPECT_EQ(fs::file_size(app + "/weights.bin"), fs::file_size(dir_->file("app.nee") + "/weights.bin") + 4 * 8);

  DeployedStagedModel staged(deployed.graphs);
  EXPECT_EQ(staged.declared_inputs()[0].dims, (std::vector<int64_t>{-1, 16, 8, 8}));
  EXPECT_THAT([&] { deployed_graph_for(deployed.graphs, {{"x", {2, 16, 8, 8}}}); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "not written for inputs of these shapes (x [2,16,8,8]): it holds (x f32[1,16,8,8]); "
                  "(x f32[3,16,8,8])")));
  EXPECT_THAT([&] { deployed_graph_for(deployed.graphs, {{"z", {1}}}); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("the deploy artifact has no input 'z'")));

  const TensorType three{DType::f32, {3, 16, 8, 8}};
  std::unique_ptr<Session> session = make_deployed_session(std::move(deployed), {}, {{"x", three.shape}});
  EXPECT_EQ(session->graph().type_of("x").shape, three.shape);
  Session reference(import_onnx(batched, {{"x", three.shape}}), {}, SessionOptions{optimize_graph});
  const Tensor x = random_tensor(three, 21);
  const Tensor got = session->run({{"x", x}}).at("y");
  const Tensor want = reference.run({{"x", x}}).at("y");
  ASSERT_EQ(got.shape(), (std::vector<int64_t>{3, 10}));
  for (int64_t i = 0; i < got.elements(); ++i) {
    EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4 * (1 + std::fabs(want.data_as<float>()[i])));
  }
}

TEST_F(DeployArtifact, DamagedWeightsAreRefused) {
  std::string weights = read_bytes(copy_ + "/weights.bin");
  weights[weights.size() / 2] ^= 0x40;
  write_bytes(copy_ + "/weights.bin", weights);
  const std::string e = load_error();
  EXPECT_HAS(e, "weights.bin is damaged or was replaced");
}

// A load that hashed the weights remembers them, so the next load of the unchanged file
// skips the hash; any write to the file (here: the same bytes written again, then one
// byte changed in place, both keeping the inode) makes the next load hash it again. A
// file written in the last 50 ms is not remembered (its times could repeat), hence the
// waits.
TEST_F(DeployArtifact, VerifiedWeightsAreHashedAgainOnlyAfterAWrite) {
  const auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(60)); };
  DeployLoadOptions options;
  options.verified_cache_dir = copy_ + "-verified";
  fs::remove_all(options.verified_cache_dir);
  settle();
  EXPECT_TRUE(load_deploy_artifact(copy_, options).weights_hashed);
  EXPECT_FALSE(load_deploy_artifact(copy_, options).weights_hashed) << "vouched for by the cache";
  EXPECT_TRUE(load_deploy_artifact(copy_, {}).weights_hashed) << "no cache: every load hashes";

  const std::string weights = read_bytes(copy_ + "/weights.bin");
  write_bytes(copy_ + "/weights.bin", weights);
  EXPECT_TRUE(load_deploy_artifact(copy_, options).weights_hashed) << "just written: hashed, not remembered";
  settle();
  EXPECT_TRUE(load_deploy_artifact(copy_, options).weights_hashed) << "written again: hashed again";
  EXPECT_FALSE(load_deploy_artifact(copy_, options).weights_hashed);
  std::string damaged = weights;
  damaged[damaged.size() / 3] ^= 0x01;
  write_bytes(copy_ + "/weights.bin", damaged);
  try {
    load_deploy_artifact(copy_, options);
    ADD_FAILURE() << "weights changed after they were verified were loaded";
  } catch (const Error& e) {
    EXPECT_HAS(std::string(e.what()), "weights.bin is damaged or was replaced");
  }
  fs::remove_all(options.verified_cache_dir);
}

TEST_F(DeployArtifact, CutWeightsAreRefused) {
  const std::string weights = read_bytes(copy_ + "/weights.bin");
  write_bytes(copy_ + "/weights.bin", weights.substr(0, weights.size() - 100));
  EXPECT_HAS(load_error(), "bytes, the manifest says");
}

TEST_F(DeployArtifact, ChangedGraphIsRefused) {
  std::string graph = read_bytes(copy_ + "/graph.json");
  graph.replace(graph.find("\"x\""), 3, "\"z\"");
  write_bytes(copy_ + "/graph.json", graph);
  EXPECT_HAS(load_error(), "graph.json is damaged or was replaced");
}

// deploy.json names its graphs by fixed names: one it points elsewhere is refused before
// anything is read there.
TEST_F(DeployArtifact, GraphsNamedOutsideTheirPlaceAreRefused) {
  nlohmann::json manifest = nlohmann::json::parse(read_bytes(copy_ + "/deploy.json"));
  manifest["graphs"] = {"../graph.json"};
  write_bytes(copy_ + "/deploy.json", manifest.dump());
  EXPECT_HAS(load_error(), "graph 0 of its manifest is not graph.json");
  manifest["graphs"] = nlohmann::json::array();
  write_bytes(copy_ + "/deploy.json", manifest.dump());
  EXPECT_HAS(load_error(), "its manifest lists no graphs");
}

TEST_F(DeployArtifact, ReplacedBundleIsRefused) {
  std::string manifest = read_bytes(copy_ + "/bundle/manifest.json");
  manifest.insert(manifest.find('{') + 1, "\n");
  write_bytes(copy_ + "/bundle/manifest.json", manifest);
  EXPECT_HAS(load_error(), "bundle/manifest.json is damaged or was replaced");
}

TEST_F(DeployArtifact, AFolderWithoutItsManifestIsIncomplete) {
  fs::remove(copy_ + "/deploy.json");
  EXPECT_FALSE(is_deploy_artifact(copy_));
  EXPECT_HAS(load_error(), "cut short: it has no deploy.json");
}

TEST_F(DeployArtifact, AnotherNeeVersionIsRefused) {
  nlohmann::json manifest = nlohmann::json::parse(read_bytes(copy_ + "/deploy.json"));
  manifest["nee_version"] = "0.0.1";
  write_bytes(copy_ + "/deploy.json", manifest.dump());
  EXPECT_HAS(load_error(), "was written by NEE 0.0.1");
}

TEST_F(DeployArtifact, AWeightsLinkIsRefused) {
  fs::rename(copy_ + "/weights.bin", copy_ + "/real-weights.bin");
  fs::create_symlink("real-weights.bin", copy_ + "/weights.bin");
  EXPECT_HAS(load_error(), "is a symbolic link");
}

// Under trusted keys deploy.json must be signed by one of them before any other part is
// read: an unsigned artifact, another key's, or a manifest changed after signing (with
// its part changed to match) is refused.
TEST_F(DeployArtifact, TrustedKeysRequireASignedManifest) {
  const std::string signed_dir = dir_->file("signed.nee");
  ASSERT_TRUE(fs::exists(signed_dir + "/deploy.sig"));
  EXPECT_NO_THROW(load_deploy_artifact(signed_dir, trusting("key.pub.pem")));
  const auto refusal = [&](const std::string& dir, const std::string& key) {
    try {
      load_deploy_artifact(dir, trusting(key));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << dir << " was loaded under " << key;
    return std::string();
  };
  EXPECT_HAS(refusal(copy_, "key.pub.pem"), "is unsigned (it has no deploy.sig)");
  EXPECT_HAS(refusal(signed_dir, "other.pub.pem"), "deploy.json");

  const std::string forged = dir_->file("forged.nee");
  fs::remove_all(forged);
  fs::copy(signed_dir, forged, fs::copy_options::recursive);
  const std::string graph = read_bytes(forged + "/graph.json") + " ";  // another file, the same graph
  write_bytes(forged + "/graph.json", graph);
  nlohmann::json manifest = nlohmann::json::parse(read_bytes(forged + "/deploy.json"));
  manifest["sha256"]["graph.json"] = sha256_hex(graph);
  write_bytes(forged + "/deploy.json", manifest.dump(2) + "\n");
  EXPECT_HAS(refusal(forged, "key.pub.pem"), "deploy.json");
  EXPECT_NO_THROW(load_deploy_artifact(forged, {})) << "without trust, only the hashes are checked";
}

TEST_F(DeployArtifact, NeeTuneWritesIntoNewFoldersOnly) {
  const ProcessResult r = run_process({NEE_TUNE_PATH, model(), "--trials", "0", "--isa", "host", "--db",
                                       dir_->file("t.db"), "--bundle", dir_->file("bundle2"), "--deploy", copy_},
                                      300, true);
  EXPECT_TRUE(r.exited && r.exit_code != 0);
  EXPECT_HAS(r.output, "exists and is not empty");
  EXPECT_TRUE(fs::exists(copy_ + "/deploy.json")) << "the artifact there is left as it was";
}

}  // namespace
}  // namespace nee
