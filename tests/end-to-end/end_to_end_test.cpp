// End to end with the shipped tools: an MLP built here with known weights is tuned
// briefly by nee-tune into a bundle, and nee-run checks the bundle's output against an
// answer computed here with plain loops, independently of NEE's kernels and reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/isa_level.h"
#include "core/subprocess.h"
#include "onnx_model_builder.h"
#include "runtime/npy_file.h"
#include "runtime/tensor_io.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;
using test::set_attr;

// Shapes: x [2,3,4] -Flatten-> [2,12] -fc1-> [2,16] -fc2-> [2,16] -Reshape-> [4,8] -Gemm(transB)-> [4,5]
constexpr int64_t kIn = 12, kHidden = 16, kRows = 4, kCols = 8, kOut = 5;

Tensor known(const std::vector<int64_t>& shape, double phase, double scale) {
  Tensor t(DType::f32, shape);
  for (int64_t i = 0; i < t.elements(); ++i) t.data_as<float>()[i] = static_cast<float>(scale * std::sin(0.37 * i + phase));
  return t;
}

struct Mlp {
  Tensor w1 = known({kIn, kHidden}, 0.1, 0.5), b1 = known({kHidden}, 0.2, 0.3);
  Tensor w2 = known({kHidden, kHidden}, 0.3, 0.4), b2 = known({kHidden}, 0.4, 0.3);
  Tensor w3 = known({kOut, kCols}, 0.5, 0.6), b3 = known({kOut}, 0.6, 0.2);

  std::string bytes() const {
    OnnxModelBuilder m;
    m.input("x", {2, 3, 4}).output("y", {kRows, kOut});
    m.initializer("w1", w1).initializer("b1", b1).initializer("w2", w2).initializer("b2", b2);
    m.initializer("w3", w3).initializer("b3", b3);
    m.initializer("new_shape", test::make_i64({2}, {kRows, kCols}));
    set_attr(m.node("Flatten", {"x"}, {"xf"}, "flatten"), "axis", int64_t{1});
    m.node("MatMul", {"xf", "w1"}, {"h1"}, "fc1");
    m.node("Add", {"h1", "b1"}, {"h1b"}, "fc1_bias");
    m.node("Relu", {"h1b"}, {"a1"}, "fc1_relu");
    m.node("MatMul", {"a1", "w2"}, {"h2"}, "fc2");
    m.node("Add", {"h2", "b2"}, {"h2b"}, "fc2_bias");
    m.node("Relu", {"h2b"}, {"a2"}, "fc2_relu");
    m.node("Reshape", {"a2", "new_shape"}, {"r"}, "reshape");
    set_attr(m.node("Gemm", {"r", "w3", "b3"}, {"y"}, "head"), "transB", int64_t{1});
    return m.bytes();
  }

  // Plain loops, in double.
  Tensor expected(const Tensor& x) const {
    const float* xv = x.data_as<float>();  // [2,3,4] row-major is [2,12] after Flatten
    std::vector<double> a1(2 * kHidden), a2(2 * kHidden);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < kHidden; ++j) {
        double s = b1.data_as<float>()[j];
        for (int p = 0; p < kIn; ++p) s += xv[i * kIn + p] * double(w1.data_as<float>()[p * kHidden + j]);
        a1[i * kHidden + j] = std::max(0.0, s);
      }
    }
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < kHidden; ++j) {
        double s = b2.data_as<float>()[j];
        for (int p = 0; p < kHidden; ++p) s += a1[i * kHidden + p] * w2.data_as<float>()[p * kHidden + j];
        a2[i * kHidden + j] = std::max(0.0, s);
      }
    }
    Tensor y(DType::f32, {kRows, kOut});  // a2 viewed as [4,8]; y = r * w3^T + b3
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kOut; ++j) {
        double s = b3.data_as<float>()[j];
        for (int p = 0; p < kCols; ++p) s += a2[i * kCols + p] * w3.data_as<float>()[j * kCols + p];
        y.data_as<float>()[i * kOut + j] = static_cast<float>(s);
      }
    }
    return y;
  }
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

ProcessResult run_tool(const std::vector<std::string>& argv, double timeout_s = 120) {
  ProcessResult r = run_process(argv, timeout_s, /*merge_stderr=*/true);
  std::string line;
  for (const auto& a : argv) line += a + " ";
  EXPECT_FALSE(r.timed_out) << line;
  return r;
}

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "nee-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(EndToEnd, TuneThenRunMatchesHandComputedOutput) {
  const Mlp mlp;
  const std::string model = file("mlp.onnx");
  write_file(model, mlp.bytes());

  const ProcessResult tune = run_tool({NEE_TUNE_PATH, model, "--trials", "2", "--db", file("tuning.db"), "--bundle",
                                       file("b"), "--seed", "1", "--work-dir", file("work"), "--no-baselines"},
                                      400);
  ASSERT_TRUE(tune.exited && tune.exit_code == 0) << tune.output;
  // Tuned at this machine's level; the levels below it (built by default) are untuned.
  const std::string host = host_isa_level().name;
  EXPECT_NE(tune.output.find("3 kernels for "), std::string::npos) << tune.output;
  EXPECT_NE(tune.output.find(host + " (3 tuned)"), std::string::npos) << tune.output;
  // The model timed on the tuned bundle and a default one; tuned kernels that ran slower
  // in it went back to their defaults, and the bundle was timed again.
  EXPECT_TRUE(std::regex_search(tune.output, std::regex(R"(measured model run: tuned bundle median [0-9.]+ ms)")))
      << tune.output;
  std::smatch went_back;
  const bool any_back =
      std::regex_search(tune.output, went_back, std::regex(R"(([0-9]+) tuned kernel\(s\) ran over 3% slower)"));
  const size_t tuned_kept = 3 - (any_back ? std::stoul(went_back[1]) : 0);
  if (any_back) {
    EXPECT_NE(tune.output.find(host + " (" + std::to_string(tuned_kept) + " tuned)"), std::string::npos)
        << tune.output;
  }
  const auto manifest = nlohmann::json::parse(read_file(file("b/manifest.json")));
  ASSERT_EQ(manifest["variants"].size(), host_isa_levels().size());
  for (const auto& v : manifest["variants"]) {
    ASSERT_EQ(v["kernels"].size(), 3u);
    size_t tuned = 0;
    for (const auto& k : v["kernels"]) {
      tuned += k["source"] == "tuned";
      EXPECT_EQ(k["median_us"].is_number(), k["source"] == "tuned");
    }
    EXPECT_EQ(tuned, v["isa"] == host ? tuned_kept : 0u) << v["isa"];
  }
  // Each host kernel's record keeps its time in the model, and the verdicts are the
  // database's: a later bundle of it, with no search, builds the same kernels.
  size_t timed_in_model = 0, slower_in_model = 0;
  for (const TuningRecord& r : TuningDatabase(file("tuning.db"), DbAccess::read_only).all_records()) {
    timed_in_model += r.in_model.has_value();
    slower_in_model += r.slower_in_model();
  }
  EXPECT_EQ(timed_in_model, 3u);
  EXPECT_EQ(slower_in_model, 3 - tuned_kept);
  const ProcessResult rebuild = run_tool({NEE_TUNE_PATH, model, "--trials", "0", "--db", file("tuning.db"), "--bundle",
                                          file("b2"), "--isa", "host", "--work-dir", file("work")},
                                         400);
  ASSERT_TRUE(rebuild.exited && rebuild.exit_code == 0) << rebuild.output;
  EXPECT_NE(rebuild.output.find(host + " (" + std::to_string(tuned_kept) + " tuned)"), std::string::npos)
      << rebuild.output;

  const Tensor x = known({2, 3, 4}, 1.5, 1.0);
  fs::create_directories(file("in"));
  fs::create_directories(file("want"));
  write_tensor_pb(file("in/input_0.pb"), x, "x");
  write_tensor_pb(file("want/output_0.pb"), mlp.expected(x), "y");

  const ProcessResult run = run_tool({NEE_RUN_PATH, model, "--bundle", file("b"), "--inputs", file("in"), "--expect",
                                      file("want"), "--placement"});
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("check y vs expected: ok"), std::string::npos) << run.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.output, m, std::regex(R"((\d+) of (\d+) nodes ran bundle kernels)"))) << run.output;
  EXPECT_EQ(m[1].str(), "3") << run.output;
  EXPECT_NE(run.output.find("kernels by ISA level: " + host + " 3 "), std::string::npos) << run.output;

  // Every level of the bundle computes the same outputs and gets a row of the table.
  const ProcessResult each = run_tool({NEE_RUN_PATH, model, "--bundle", file("b"), "--inputs", file("in"), "--each-isa",
                                       "--repeat", "3", "--warmup", "1"});
  ASSERT_TRUE(each.exited && each.exit_code == 0) << each.output;
  for (const IsaLevel* l : host_isa_levels()) {
    EXPECT_NE(each.output.find("kernels by ISA level: " + l->name + " 3 "), std::string::npos) << each.output;
    EXPECT_NE(each.output.find("check y vs the uncapped run, at " + l->name + ": ok"), std::string::npos)
        << each.output;
    EXPECT_TRUE(std::regex_search(each.output, std::regex("\\n" + l->name + " +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x")))
        << each.output;
  }
  for (const char* node : {"fc1", "fc2", "head"}) {
    EXPECT_TRUE(std::regex_search(run.output, std::regex(std::string(node) + R"(\s+NeeMatMul\s+bundle\s+nee_)")))
        << node << "\n" << run.output;
  }

  // The check is real: a wrong expected output fails the run.
  Tensor wrong = mlp.expected(x);
  wrong.data_as<float>()[3] += 0.5f;
  fs::create_directories(file("wrong"));
  write_tensor_pb(file("wrong/output_0.pb"), wrong, "y");
  const ProcessResult bad = run_tool({NEE_RUN_PATH, model, "--bundle", file("b"), "--inputs", file("in"), "--expect",
                                      file("wrong")});
  EXPECT_TRUE(bad.exited);
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("MISMATCH"), std::string::npos) << bad.output;
}

// Data sets saved by numpy.save run and are checked as .pb ones are (here on the
// reference kernels); a folder holding both files of one tensor is refused.
// Under --time with --bundle the bundle's kernels are compiled before the search, and the
// run says what it took of its budget.
TEST_F(EndToEnd, ATimeBudgetHoldsTheBundleStage) {
  const Mlp mlp;
  const std::string model = file("mlp.onnx");
  write_file(model, mlp.bytes());
  const ProcessResult tune =
      run_tool({NEE_TUNE_PATH, model, "--time", "20s", "--db", file("tuning.db"), "--bundle", file("b"), "--seed", "1",
                "--work-dir", file("work"), "--object-cache", file("objects")},
               400);
  ASSERT_TRUE(tune.exited && tune.exit_code == 0) << tune.output;
  const size_t ahead = tune.output.find("compiling the bundle's kernels before the search");
  const size_t summary = tune.output.find("estimated model time");
  ASSERT_NE(ahead, std::string::npos) << tune.output;
  ASSERT_NE(summary, std::string::npos) << tune.output;
  EXPECT_LT(ahead, summary) << tune.output;
  EXPECT_TRUE(std::regex_search(tune.output, std::regex(R"(measured model run: tuned bundle median [0-9.]+ ms)")))
      << tune.output;
  EXPECT_TRUE(std::regex_search(tune.output, std::regex(R"(the run took [0-9ms]+ of its 20s budget)"))) << tune.output;
  EXPECT_TRUE(fs::exists(file("b/manifest.json")));
  EXPECT_FALSE(fs::exists(file("work"))) << "the scratch folder outlived the run";
}

TEST_F(EndToEnd, NumpyDataSetsRunAndAreChecked) {
  const Mlp mlp;
  const std::string model = file("mlp.onnx");
  write_file(model, mlp.bytes());
  const Tensor x = known({2, 3, 4}, 1.5, 1.0);
  fs::create_directories(file("in"));
  fs::create_directories(file("want"));
  write_npy(file("in/input_0.npy"), x);
  write_npy(file("want/output_0.npy"), mlp.expected(x));
  const ProcessResult run = run_tool({NEE_RUN_PATH, model, "--inputs", file("in"), "--expect", file("want")});
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("check y vs expected: ok"), std::string::npos) << run.output;

  Tensor wrong = mlp.expected(x);
  wrong.data_as<float>()[1] += 0.5f;
  write_npy(file("want/output_0.npy"), wrong);
  const ProcessResult bad = run_tool({NEE_RUN_PATH, model, "--inputs", file("in"), "--expect", file("want")});
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("MISMATCH"), std::string::npos) << bad.output;

  write_tensor_pb(file("in/input_0.pb"), x, "x");
  const ProcessResult both = run_tool({NEE_RUN_PATH, model, "--inputs", file("in")});
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_NE(both.output.find("holds both input_0.pb and input_0.npy"), std::string::npos) << both.output;
}

// --profile on the reference kernels: the trace holds a run span and one span per node for
// each of the --repeat runs, and the op table counts every node of a run.
// Tuning under a cap fills that level's variant: a bundle built afterwards without the cap
// holds the lower level's tuned kernels beside the higher level's defaults, and the
// runtime takes the tuned ones even on a CPU that runs the higher level.
TEST_F(EndToEnd, TuningUnderACapFillsThatLevelsVariant) {
  const std::vector<const IsaLevel*> levels = host_isa_levels();
  if (levels.size() < 2) GTEST_SKIP() << "this CPU runs one ISA level only";
  const std::string low = levels.front()->name, high = levels.back()->name;
  const Mlp mlp;
  const std::string model = file("mlp.onnx");
  write_file(model, mlp.bytes());

  setenv(kMaxIsaVariable, low.c_str(), 1);
  const ProcessResult tune = run_tool({NEE_TUNE_PATH, model, "--trials", "2", "--db", file("tuning.db"), "--seed", "1",
                                       "--work-dir", file("work"), "--no-baselines"},
                                      400);
  unsetenv(kMaxIsaVariable);
  ASSERT_TRUE(tune.exited && tune.exit_code == 0) << tune.output;
  EXPECT_NE(tune.output.find("workload(s) on " + levels.front()->halide + " "), std::string::npos) << tune.output;

  const ProcessResult bundle = run_tool(
      {NEE_TUNE_PATH, model, "--trials", "0", "--db", file("tuning.db"), "--bundle", file("b"), "--isa", low + "," + high},
      400);
  ASSERT_TRUE(bundle.exited && bundle.exit_code == 0) << bundle.output;
  EXPECT_NE(bundle.output.find("3 kernels for " + low + " (3 tuned), " + high + " (0 tuned)"), std::string::npos)
      << bundle.output;
  const ProcessResult run = run_tool({NEE_RUN_PATH, model, "--bundle", file("b"), "--placement"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("kernels by ISA level: " + low + " 3 "), std::string::npos) << run.output;
}

TEST_F(EndToEnd, NeeRunProfileWritesATraceOfEveryRun) {
  const std::string model = file("mlp.onnx");
  write_file(model, Mlp().bytes());
  const ProcessResult run =
      run_tool({NEE_RUN_PATH, model, "--repeat", "2", "--warmup", "1", "--profile", file("trace.json")});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("FLOPs per run: 2.112e-06 GFLOP, 100.0% on reference kernels"), std::string::npos)
      << run.output;  // fc1 768 + fc2 1024 + head 320

  const auto trace = nlohmann::json::parse(read_file(file("trace.json")));
  std::vector<std::string> per_run[2];
  int runs = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    if (e.at("cat") == "run") {
      ++runs;
      continue;
    }
    EXPECT_EQ(e.at("args").at("provider"), "reference") << e.dump();
    per_run[e.at("args").at("run").get<int>()].push_back(e.at("name"));
  }
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(per_run[0], per_run[1]);
  for (const char* node : {"fc1", "fc2", "head"}) {
    EXPECT_NE(std::find(per_run[0].begin(), per_run[0].end(), node), per_run[0].end()) << node;
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.output, m, std::regex(R"(\n  total +(\d+) )"))) << run.output;
  EXPECT_EQ(std::stoul(m[1].str()), per_run[0].size()) << run.output;
  EXPECT_NE(run.output.find("median over 2 runs"), std::string::npos) << run.output;
}

TEST_F(EndToEnd, NeeRunRefusesABadProfilePathBeforeRunning) {
  const std::string model = file("mlp.onnx");
  write_file(model, Mlp().bytes());
  const ProcessResult r = run_tool({NEE_RUN_PATH, model, "--repeat", "3", "--profile", file("no/such/trace.json")});
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write the profile to '" + file("no/such/trace.json") + "'"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("time "), std::string::npos) << r.output;
}

TEST_F(EndToEnd, NeeRunRefusesANegativeThreadCount) {
  const std::string model = file("mlp.onnx");
  write_file(model, Mlp().bytes());
  const ProcessResult r = run_tool({NEE_RUN_PATH, model, "--threads", "-1"});
  EXPECT_TRUE(r.exited);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--threads"), std::string::npos) << r.output;
}

TEST_F(EndToEnd, NeeRunRefusesAMissingModel) {
  const ProcessResult r = run_tool({NEE_RUN_PATH, file("nope.onnx")});
  EXPECT_TRUE(r.exited);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("nope.onnx"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
}

TEST_F(EndToEnd, NeeRunRefusesACorruptModel) {
  const std::string bytes = Mlp().bytes();
  write_file(file("corrupt.onnx"), bytes.substr(0, bytes.size() / 2));
  const ProcessResult r = run_tool({NEE_RUN_PATH, file("corrupt.onnx")});
  EXPECT_TRUE(r.exited);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("corrupt.onnx"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not a valid ONNX model"), std::string::npos) << r.output;
}

TEST_F(EndToEnd, NeeTuneNamesABadShape) {
  const ProcessResult r =
      run_tool({NEE_TUNE_PATH, "--op", "matmul", "--shape", "12xx4", "--db", file("tuning.db"), "--trials", "1"});
  EXPECT_TRUE(r.exited);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("12xx4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad matmul shape"), std::string::npos) << r.output;
}

TEST_F(EndToEnd, NeeTuneRefusesATextFileDatabaseWithoutTouchingIt) {
  const std::string db = file("notes.db");
  const std::string text = "These are my notes, not a tuning database.\nDo not overwrite.\n";
  write_file(db, text);
  const auto before = fs::last_write_time(db);
  const ProcessResult r =
      run_tool({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--db", db, "--trials", "1",
                "--work-dir", file("work")});
  EXPECT_TRUE(r.exited);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("notes.db"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(db), text);
  EXPECT_EQ(fs::last_write_time(db), before);
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-journal"));
}

// A model with a symbolic batch dim, bundled and run at batch 3 through --input-shape:
// y = relu(x w + b), x ["batch", 12].
TEST_F(EndToEnd, InputShapeBundlesAndRunsAnotherBatch) {
  const Tensor w = known({kIn, kHidden}, 0.7, 0.5), b = known({kHidden}, 0.8, 0.3);
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {"batch", std::to_string(kIn)}).output("y");
  builder.initializer("w", w).initializer("b", b);
  builder.node("MatMul", {"x", "w"}, {"h"}, "fc");
  builder.node("Add", {"h", "b"}, {"hb"}, "fc_bias");
  builder.node("Relu", {"hb"}, {"y"}, "fc_relu");
  const std::string model = file("dense.onnx");
  write_file(model, builder.bytes());

  // The option before the model: it takes one value, so the model stays the model.
  const ProcessResult tune = run_tool({NEE_TUNE_PATH, "--input-shape", "x=3x12", model, "--trials", "0", "--db",
                                       file("tuning.db"), "--bundle", file("b3")}, 400);
  ASSERT_TRUE(tune.exited && tune.exit_code == 0) << tune.output;
  const auto manifest = nlohmann::json::parse(read_file(file("b3/manifest.json")));
  const auto& kernels = manifest["variants"].back()["kernels"];
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]["workload"]["inputs"][0]["shape"], nlohmann::json({3, kIn})) << manifest.dump();

  const Tensor x = known({3, kIn}, 2.5, 1.0);
  Tensor y(DType::f32, {3, kHidden});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < kHidden; ++j) {
      double sum = b.data_as<float>()[j];
      for (int p = 0; p < kIn; ++p) sum += x.data_as<float>()[i * kIn + p] * double(w.data_as<float>()[p * kHidden + j]);
      y.data_as<float>()[i * kHidden + j] = static_cast<float>(std::max(0.0, sum));
    }
  }
  fs::create_directories(file("in"));
  fs::create_directories(file("want"));
  write_tensor_pb(file("in/input_0.pb"), x, "x");
  write_tensor_pb(file("want/output_0.pb"), y, "y");
  const ProcessResult run = run_tool({NEE_RUN_PATH, model, "--input-shape", "x=3x12", "--bundle", file("b3"),
                                      "--inputs", file("in"), "--expect", file("want"), "--placement"});
  EXPECT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("check y vs expected: ok"), std::string::npos) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(fc\s+NeeMatMul\s+bundle\s+nee_)"))) << run.output;

  // At the default batch 1 the batch-3 kernel is not this graph's workload.
  const ProcessResult batch1 = run_tool({NEE_RUN_PATH, model, "--bundle", file("b3"), "--placement"});
  EXPECT_TRUE(batch1.exited && batch1.exit_code == 0) << batch1.output;
  EXPECT_NE(batch1.output.find("0 of 1 nodes ran bundle kernels"), std::string::npos) << batch1.output;

  const ProcessResult bad = run_tool({NEE_RUN_PATH, model, "--input-shape", "x=3x13"});
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("contradicts its declared dim 1 = 12"), std::string::npos) << bad.output;
  const ProcessResult garbled = run_tool({NEE_TUNE_PATH, model, "--input-shape", "x:3x12", "--trials", "0"});
  EXPECT_NE(garbled.exit_code, 0) << garbled.output;
  EXPECT_NE(garbled.output.find("bad input shape 'x:3x12'"), std::string::npos) << garbled.output;
  const ProcessResult no_model =
      run_tool({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--input-shape", "x=3x12", "--trials", "0"});
  EXPECT_NE(no_model.exit_code, 0) << no_model.output;
  EXPECT_NE(no_model.output.find("--input-shape needs a model"), std::string::npos) << no_model.output;
}

}  // namespace
}  // namespace nee
