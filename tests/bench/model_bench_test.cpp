#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

// A stand-in for run_peer.py, run by /bin/sh: it saves its arguments to args.txt, copies
// a prepared output_0.pb and writes the result JSON run_peer.py would, with its pid,
// latencies 1, 2 and 3 ms and start-ups of 9 ms (process) and 5 ms (session).
std::string write_fake_peer(const fs::path& dir, const Tensor& output) {
  write_tensor_pb((dir / "prepared.pb").string(), output, "output");
  const fs::path script = dir / "fake_peer.sh";
  std::ofstream(script) << "echo \"$@\" > '" << (dir / "args.txt").string() << "'\n"
                           "while [ $# -gt 0 ]; do case \"$1\" in --json) json=$2;; --outputs) out=$2;; esac; shift; done\n"
                           "mkdir -p \"$out\" && cp '" << (dir / "prepared.pb").string() << "' \"$out/output_0.pb\"\n"
                           "echo '{\"version\": \"fake 1.0\", \"pid\": '$$', \"process_startup_ms\": 9, "
                           "\"session_startup_ms\": 5, \"latencies_ms\": [3, 1, 2], \"peak_rss_kib\": 2048, "
                           "\"outputs\": [\"'\"$out\"'/output_0.pb\"]}' > \"$json\"\n";
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
  // 12.5% off is no quantized model's rounding; 2% off could be, and the table says how to
  // hold it to that.
  EXPECT_THAT(table, Not(HasSubstr("--peak-rtol")));
  ModelResult near_miss = m;
  near_miss.engines[2].error_vs_pytorch = 0.02;
  EXPECT_THAT(format_model_table(near_miss), HasSubstr("rounds differently in every engine, and --peak-rtol"));
  const nlohmann::json j = models_to_json({m}, nlohmann::json::object());
  const auto& ov = j["models"][0]["engines"][2];
  EXPECT_THAT(ov["status"].get<std::string>(), HasSubstr("DISAGREES"));
  EXPECT_FALSE(ov.contains("latency_ms"));
  EXPECT_FALSE(ov.contains("process_startup_ms"));
  const auto& ort = j["models"][0]["engines"][1];
  EXPECT_TRUE(ort.contains("latency_ms"));
  EXPECT_DOUBLE_EQ(ort["process_startup_ms"].get<double>(), 9);
  EXPECT_DOUBLE_EQ(ort["session_startup_ms"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(ort["peak_rss_mib"].get<double>(), 2);
  EXPECT_GT(ort["pid"].get<int>(), 0);
  EXPECT_NE(ort["pid"].get<int>(), getpid());
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

TEST(ModelThroughput, RepeatAlongBatchCopiesTheSample) {
  const Tensor sample = random_tensor({DType::f32, {1, 2, 3}}, 21);
  const Tensor batch = repeat_along_batch(sample, 4);
  ASSERT_EQ(batch.shape(), (std::vector<int64_t>{4, 2, 3}));
  for (int64_t i = 0; i < batch.elements(); ++i) {
    EXPECT_EQ(batch.data_as<float>()[i], sample.data_as<float>()[i % 6]) << "element " << i;
  }
  EXPECT_EQ(repeat_along_batch(sample, 1).shape(), sample.shape());
  EXPECT_THROW(repeat_along_batch(sample, 0), Error);
  EXPECT_THROW(repeat_along_batch(Tensor(DType::f32, {}), 2), Error);
}

TEST(ModelThroughput, BatchedInputShapesComeFromTheTestData) {
  const fs::path dir = fresh_dir("shapes");
  write_tensor_pb((dir / "input_0.pb").string(), random_tensor({DType::f32, {1, 3, 5}}, 22), "image");
  write_tensor_pb((dir / "input_1.pb").string(), random_tensor({DType::i64, {1, 7}}, 23), "ids");
  const InputShapes shapes = batched_input_shapes(dir.string(), 8);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes.at("image"), (std::vector<int64_t>{8, 3, 5}));
  EXPECT_EQ(shapes.at("ids"), (std::vector<int64_t>{8, 7}));
  EXPECT_EQ(batched_input_shapes(dir.string(), 1).at("image"), (std::vector<int64_t>{1, 3, 5}));

  write_tensor_pb((dir / "input_0.pb").string(), random_tensor({DType::f32, {1, 3}}, 24), "");
  EXPECT_THROW(batched_input_shapes(dir.string(), 8), Error);
  EXPECT_THROW(batched_input_shapes((dir / "absent").string(), 8), Error);
  fs::remove_all(dir);
}

TEST(ModelThroughput, EverySampleIsCheckedBeforeThroughputIsReported) {
  const Tensor pytorch = random_tensor({DType::f32, {1, 4}}, 25);
  const Tensor expected8 = repeat_along_batch(pytorch, 8);
  Tensor one_bad_row = expected8.clone();
  one_bad_row.data_as<float>()[5 * 4 + 2] += 0.5f;  // sample 5 only
  const fs::path dir = fresh_dir("batch8");
  fs::create_directories(dir / "good");
  fs::create_directories(dir / "bad");
  RunSettings settings;
  ModelResult m;
  m.model = "fake";
  m.throughput.batch = 8;
  m.throughput.engines.push_back(nee_run_with(expected8));
  m.throughput.engines[0].batch = 8;
  m.throughput.engines[0].provenance = "given bundle b8";
  m.throughput.engines[0].bundle_flop_share = 0.25;
  m.throughput.engines.push_back(run_peer("onnxruntime", PeerSetup{"/bin/sh", write_fake_peer(dir / "good", expected8)},
                                          "model.onnx", "inputs", (dir / "runs").string(), settings, 8));
  m.throughput.engines.push_back(run_peer("openvino", PeerSetup{"/bin/sh", write_fake_peer(dir / "bad", one_bad_row)},
                                          "model.onnx", "inputs", (dir / "runs").string(), settings, 8));
  ASSERT_TRUE(m.throughput.engines[1].ran()) << m.throughput.engines[1].skipped;
  std::stringstream args;
  args << std::ifstream(dir / "good" / "args.txt").rdbuf();
  EXPECT_THAT(args.str(), HasSubstr("--batch 8"));

  m.throughput.max_pairwise_error = cross_check(m.throughput.engines, expected8, 1e-3);
  EXPECT_TRUE(m.throughput.engines[1].timed());
  EXPECT_THAT(m.throughput.engines[2].disagreement, HasSubstr("differs from PyTorch"));
  EXPECT_GT(m.throughput.max_pairwise_error, 1e-3);
  // NEE: 8 samples in 4 ms; the good peer: 8 in 2 ms (p50 of 1, 2, 3).
  EXPECT_DOUBLE_EQ(throughput(m.throughput.engines[0]), 2000);
  EXPECT_DOUBLE_EQ(throughput(m.throughput.engines[1]), 4000);
  EXPECT_EQ(throughput(m.throughput.engines[2]), 0);
  EXPECT_DOUBLE_EQ(throughput_ratio(m, "onnxruntime"), 0.5);
  EXPECT_EQ(throughput_ratio(m, "openvino"), 0);

  const std::string table = format_model_table(m);
  EXPECT_THAT(table, HasSubstr("samples/s"));
  EXPECT_THAT(table, HasSubstr("given bundle b8; 25.0% of FLOPs in bundle kernels"));
  EXPECT_THAT(table, HasSubstr("onnxruntime     4000.0     2.000"));
  EXPECT_THAT(table, HasSubstr("0.50"));
  EXPECT_THAT(table, HasSubstr("openvino     DISAGREES: output 0 differs from PyTorch"));
  const nlohmann::json j = models_to_json({m}, nlohmann::json::object());
  const auto& t = j["models"][0]["throughput"];
  EXPECT_EQ(t["batch"], 8);
  EXPECT_DOUBLE_EQ(t["engines"][1]["samples_per_s"].get<double>(), 4000);
  EXPECT_DOUBLE_EQ(t["engines"][0]["bundle_flop_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(t["engines"][1]["nee_over_peer_throughput"].get<double>(), 0.5);
  EXPECT_FALSE(t["engines"][2].contains("samples_per_s"));
  const std::string md = format_markdown({m}, nlohmann::json::object());
  EXPECT_THAT(md, HasSubstr("| fake | 8 | onnxruntime | 4000.0 | 2.000 | 2.800 | 0.50 | fake 1.0 |"));
  fs::remove_all(dir);
}

TEST(ModelThroughput, SkippedThroughputSaysWhy) {
  ModelResult m;
  m.model = "fake";
  m.engines = {nee_run_with(vector_tensor({1}))};
  m.throughput.not_measured = "--no-batch8";
  EXPECT_THAT(format_model_table(m), HasSubstr("batch 8: not measured: --no-batch8"));
  EXPECT_EQ(models_to_json({m}, nlohmann::json::object())["models"][0]["throughput"]["not_measured"], "--no-batch8");
  EXPECT_THAT(format_markdown({m}, nlohmann::json::object()), HasSubstr("| fake | 8 | | | | | | not measured: --no-batch8 |"));
}

TEST(ModelRounds, EveryRoundRunsEveryEngineInARotatedOrderAndRunsArePooled) {
  RunSettings settings;
  settings.runs = 10;
  settings.rounds = 3;
  std::vector<std::string> order;
  int call = 0;
  const std::vector<EngineRun> pooled =
      run_in_rounds({"nee", "onnxruntime", "openvino"}, settings, [&](const std::string& engine, const RunSettings& r) {
        order.push_back(engine);
        EXPECT_EQ(r.runs, 4);  // 10 runs in 3 rounds: 4 per round, rounded up
        EngineRun run;
        run.engine = engine;
        run.version = "v" + std::to_string(call);
        run.process_startup_ms = 100.0 + call;
        run.session_startup_ms = 50.0 + call;
        run.peak_rss_mib = 10.0 * call;
        for (int i = 0; i < r.runs; ++i) run.latencies_ms.push_back(call * 10.0 + i);
        run.latency = summarize_latencies(run.latencies_ms);
        ++call;
        return run;
      });
  EXPECT_EQ(order, (std::vector<std::string>{"nee", "onnxruntime", "openvino", "onnxruntime", "openvino", "nee",
                                             "openvino", "nee", "onnxruntime"}));
  ASSERT_EQ(pooled.size(), 3u);
  const EngineRun& nee = pooled[0];  // calls 0, 5 and 7
  EXPECT_EQ(nee.engine, "nee");
  EXPECT_EQ(nee.version, "v0");
  EXPECT_EQ(nee.latencies_ms.size(), 12u);
  EXPECT_EQ(nee.latency.count, 12);
  EXPECT_DOUBLE_EQ(nee.latency.min, 0.0);
  EXPECT_DOUBLE_EQ(nee.latency.max, 73.0);
  EXPECT_DOUBLE_EQ(nee.process_startup_ms, 105.0);  // median of 100, 105, 107
  EXPECT_DOUBLE_EQ(nee.session_startup_ms, 55.0);   // median of 50, 55, 57
  EXPECT_DOUBLE_EQ(nee.peak_rss_mib, 70.0);   // largest
}

TEST(ModelRounds, ASkippedRoundSkipsTheEngine) {
  EngineRun ok;
  ok.engine = "openvino";
  ok.latencies_ms = {1.0};
  EngineRun skipped;
  skipped.engine = "openvino";
  skipped.skipped = "exit status 1: out of memory";
  EXPECT_EQ(pool_rounds({ok, skipped}).skipped, "exit status 1: out of memory");
  EXPECT_THROW(pool_rounds({}), Error);
}

}  // namespace
}  // namespace nee::bench
