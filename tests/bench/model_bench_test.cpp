#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/models/model_bench.h"
#include "bench/models/model_report.h"
#include "core/error.h"
#include "runtime/tensor_io.h"

namespace nee::bench {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

Tensor vector_tensor(const std::vector<float>& values) {
  Tensor t(DType::f32, {1, static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nee_model_bench_test_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A stand-in for run_peer.py, run by /bin/sh: it copies a prepared output_0.pb and
// writes the result JSON run_peer.py would, with latencies 1, 2 and 3 ms.
std::string write_fake_peer(const fs::path& dir, const Tensor& output) {
  write_tensor_pb((dir / "prepared.pb").string(), output, "output");
  const fs::path script = dir / "fake_peer.sh";
  std::ofstream(script) << "while [ $# -gt 0 ]; do case \"$1\" in --json) json=$2;; --outputs) out=$2;; esac; shift; done\n"
                           "mkdir -p \"$out\" && cp '" << (dir / "prepared.pb").string() << "' \"$out/output_0.pb\"\n"
                           "echo '{\"version\": \"fake 1.0\", \"startup_ms\": 5, \"latencies_ms\": [3, 1, 2], "
                           "\"peak_rss_kib\": 2048, \"outputs\": [\"'\"$out\"'/output_0.pb\"]}' > \"$json\"\n";
  return script.string();
}

EngineRun nee_run_with(const Tensor& output) {
  EngineRun nee;
  nee.engine = "nee";
  nee.outputs = {output};
  nee.latencies_ms = {4, 4, 4};
  nee.latency = summarize_latencies(nee.latencies_ms);
  return nee;
}

TEST(ModelLatency, PercentilesOfKnownSamples) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);  // 1..100, unsorted
  const LatencySummary s = summarize_latencies(samples);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_DOUBLE_EQ(s.p90, 90.1);
  EXPECT_DOUBLE_EQ(s.p99, 99.01);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  const LatencySummary one = summarize_latencies({7});
  EXPECT_DOUBLE_EQ(one.p50, 7);
  EXPECT_DOUBLE_EQ(one.p99, 7);
  EXPECT_THROW(summarize_latencies({}), Error);
}

TEST(ModelCrossCheck, DisagreeingPeerGetsNoTimes) {
  const Tensor pytorch = vector_tensor({1, -2, 3, 4});
  const fs::path dir = fresh_dir("cross");
  fs::create_directories(dir / "good");
  fs::create_directories(dir / "bad");
  const PeerSetup good{"/bin/sh", write_fake_peer(dir / "good", vector_tensor({1, -2, 3, 4.0001f}))};
  const PeerSetup bad{"/bin/sh", write_fake_peer(dir / "bad", vector_tensor({1, -2, 3, 4.5f}))};
  RunSettings settings;
  ModelResult m;
  m.model = "fake";
  m.engines.push_back(nee_run_with(pytorch));
  m.engines.push_back(run_peer("onnxruntime", good, "model.onnx", "inputs", (dir / "runs").string(), settings));
  m.engines.push_back(run_peer("openvino", bad, "model.onnx", "inputs", (dir / "runs").string(), settings));
  ASSERT_TRUE(m.engines[1].ran()) << m.engines[1].skipped;
  ASSERT_TRUE(m.engines[2].ran()) << m.engines[2].skipped;
  EXPECT_EQ(m.engines[2].latencies_ms.size(), 3u);  // measured, but not yet checked

  m.max_pairwise_error = cross_check(m.engines, pytorch, 1e-3);
  EXPECT_NEAR(m.max_pairwise_error, 0.5 / 4.5, 1e-6);  // NEE against openvino, relative to the latter
  EXPECT_TRUE(m.engines[0].timed());
  EXPECT_TRUE(m.engines[1].timed());
  EXPECT_DOUBLE_EQ(m.engines[1].latency.p50, 2);
  EXPECT_EQ(m.engines[1].version, "fake 1.0");
  EXPECT_FALSE(m.engines[2].timed());
  EXPECT_THAT(m.engines[2].disagreement, HasSubstr("differs from PyTorch"));
  EXPECT_TRUE(m.engines[2].latencies_ms.empty());
  EXPECT_EQ(latency_ratio(m, "openvino"), 0);
  EXPECT_DOUBLE_EQ(latency_ratio(m, "onnxruntime"), 2.0);

  const std::string table = format_model_table(m);
  EXPECT_THAT(table, HasSubstr("openvino     DISAGREES: output 0 differs from PyTorch"));
  const nlohmann::json j = models_to_json({m}, nlohmann::json::object());
  const auto& ov = j["models"][0]["engines"][2];
  EXPECT_THAT(ov["status"].get<std::string>(), HasSubstr("DISAGREES"));
  EXPECT_FALSE(ov.contains("latency_ms"));
  EXPECT_FALSE(ov.contains("startup_ms"));
  EXPECT_TRUE(j["models"][0]["engines"][1].contains("latency_ms"));
  EXPECT_THAT(ratio_chart_svg({m}), HasSubstr("2.00"));
  fs::remove_all(dir);
}

TEST(ModelCrossCheck, PeerDisagreeingWithNeeOnlyIsRejected) {
  const Tensor pytorch = vector_tensor({1, 2, 3, 4});
  std::vector<EngineRun> runs = {nee_run_with(vector_tensor({1, 2, 3, 4.003f})),
                                 nee_run_with(vector_tensor({1, 2, 3, 3.997f}))};
  runs[1].engine = "onnxruntime";
  cross_check(runs, pytorch, 1e-3);
  EXPECT_TRUE(runs[0].timed());  // 0.00075 of the peak from PyTorch
  EXPECT_THAT(runs[1].disagreement, HasSubstr("differs from NEE's"));
}

TEST(ModelPeers, MissingVenvIsSkippedWithReason) {
  const fs::path dir = fresh_dir("missing");
  const PeerSetup none{(dir / "peers-venv/bin/python").string(), "bench/peers/run_peer.py"};
  const EngineRun r = run_peer("onnxruntime", none, "model.onnx", "inputs", dir.string(), RunSettings{});
  EXPECT_FALSE(r.ran());
  EXPECT_THAT(r.skipped, HasSubstr("no peer interpreter at"));
  EXPECT_THAT(r.skipped, HasSubstr("setup_peers.sh"));

  // An interpreter without the engine: run_peer.py exits 3 with a one-line reason.
  std::ofstream(dir / "no_engine.sh") << "echo 'onnxruntime is not installed in /venv' >&2; exit 3\n";
  const EngineRun missing = run_peer("onnxruntime", PeerSetup{"/bin/sh", (dir / "no_engine.sh").string()},
                                     "model.onnx", "inputs", dir.string(), RunSettings{});
  EXPECT_EQ(missing.skipped, "exit status 3: onnxruntime is not installed in /venv");

  ModelResult m;
  m.model = "fake";
  m.engines = {nee_run_with(vector_tensor({1})), r, missing};
  EXPECT_EQ(cross_check(m.engines, vector_tensor({1}), 1e-3), 0);
  const std::string table = format_model_table(m);
  EXPECT_THAT(table, HasSubstr("skipped: no peer interpreter at"));
  EXPECT_THAT(table, HasSubstr("skipped: exit status 3"));
  EXPECT_THAT(ratio_chart_svg({m}), HasSubstr("n/a"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nee::bench
