#include "bench/models/models_main.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "bench/models/model_bench.h"
#include "bench/models/model_report.h"
#include "bench/report_file.h"
#include "core/error.h"
#include "core/target.h"
#include "core/version.h"
#include "importer/input_shape_text.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/tensor_io.h"

namespace nee::bench {
namespace fs = std::filesystem;

bool wants_models_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--models") return true;
  }
  return false;
}

namespace {

const char* kZooModels[] = {"resnet18", "resnet50", "mobilenet_v2", "bert_encoder"};
// Issue 6: throughput at batch 8 besides batch-1 latency.
constexpr int kThroughputBatch = 8;

// The build folder: nee-bench lives in <build>/bench/.
fs::path build_dir() { return fs::canonical("/proc/self/exe").parent_path().parent_path(); }

// Which nee-tune built a cached bundle: its path, size and modification time. A rebuilt
// NEE keeps its version string, and a bundle of the same version still loads, but its
// graph passes or default schedules may have changed (a reused bundle once ran
// Inception-v3 at 2.1x the time of a fresh one, its pools' keys changed by a new pass).
std::string builder_stamp(const std::string& nee_tune) {
  const auto modified = fs::last_write_time(nee_tune).time_since_epoch().count();
  return fmt::format("{} {} {}\n", nee_tune, fs::file_size(nee_tune), modified);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The bundle for `model` at `batch`: the one under given_root, or one built with default
// schedules by `nee-tune --trials 0` into work_dir, at batch > 1 with --input-shape from
// the test inputs (reused when the same nee-tune built it and it still loads for this
// model; batch-1 and batch-N bundles have folders of their own, since both load for the
// same model file). Returns the folder and where it came from.
std::pair<std::string, std::string> bundle_for(const std::string& name, const std::string& model,
                                               const std::string& inputs, int batch, const std::string& given_root,
                                               const std::string& nee_tune, const fs::path& work_dir, int threads) {
  if (!given_root.empty()) {
    const fs::path dir = fs::path(given_root) / name;
    return {dir.string(), "given bundle " + dir.string()};
  }
  const fs::path slot = work_dir / (batch == 1 ? std::string("bundles") : fmt::format("bundles-batch{}", batch));
  const fs::path dir = slot / name;
  const std::string built_for = batch == 1 ? "" : fmt::format(" --input-shape at batch {}", batch);
  const fs::path stamp = dir / "built-by.txt";
  try {
    BundleLoadOptions options;
    options.model_path = model;
    options.threads = threads;
    KernelBundle::load(dir.string(), options);
    if (read_text(stamp) == builder_stamp(nee_tune)) {
      return {dir.string(), fmt::format("default schedules (nee-tune --trials 0{}, reused)", built_for)};
    }
  } catch (const std::exception&) {
    // Absent or stale: build it below.
  }
  fs::create_directories(slot);
  fmt::print(stderr, "  building {}'s bundle with default schedules (nee-tune --trials 0{})...\n", name, built_for);
  // A database of its own, so no tuned schedule of the user's database slips in.
  const std::string log = (slot / (name + ".log")).string();
  std::vector<std::string> argv = {nee_tune, model, "--trials", "0", "--bundle", dir.string(), "--db",
                                   (slot / "default-schedules.db").string()};
  if (batch > 1) {
    for (const auto& [input, shape] : batched_input_shapes(inputs, batch)) {
      argv.push_back("--input-shape");
      argv.push_back(input_shape_text(input, shape));
    }
  }
  const int rc = run_logged(argv, log);
  if (rc != 0) throw Error(fmt::format("nee-tune failed (exit {}): {} (log: {})", rc, last_line_of(log), log));
  std::ofstream(stamp) << builder_stamp(nee_tune);
  return {dir.string(), fmt::format("default schedules (nee-tune --trials 0{}, built now)", built_for)};
}

// Where each engine is measured: NEE in nee-model-runner, the peers through run_peer.py.
struct Measurers {
  std::string nee_runner;
  PeerSetup peer;
};

// NEE (from `bundle`) and the peers at `batch`, in rounds (RunSettings::rounds), each
// run in a process of its own.
std::vector<EngineRun> run_engines(const std::string& model, const std::string& inputs, const std::string& bundle,
                                   const std::string& provenance, const std::vector<std::string>& peers,
                                   const Measurers& measurers, const std::string& work_dir,
                                   const RunSettings& settings, int batch) {
  std::vector<std::string> engines = {"nee"};
  engines.insert(engines.end(), peers.begin(), peers.end());
  return run_in_rounds(engines, settings, [&](const std::string& engine, const RunSettings& round) {
    if (engine != "nee") return run_peer(engine, measurers.peer, model, inputs, work_dir, round, batch);
    EngineRun nee = run_nee(measurers.nee_runner, model, inputs, bundle, work_dir, round, batch);
    nee.provenance = provenance;
    return nee;
  });
}

// NEE and the peers at `batch` (the test inputs repeated along dim 0), checked against
// PyTorch's batch-1 output repeated likewise, with the same settings as batch 1.
ThroughputResult measure_throughput(const std::string& name, const std::string& model, const std::string& inputs,
                                    const std::string& bundle_root, const std::string& nee_tune, const fs::path& out,
                                    const std::vector<std::string>& peers, const Measurers& measurers,
                                    const RunSettings& settings, int batch) {
  ThroughputResult t;
  t.batch = batch;
  try {
    const auto [bundle, provenance] =
        bundle_for(name, model, inputs, batch, bundle_root, nee_tune, out, settings.threads);
    const std::string work_dir = (out / "runs" / name / fmt::format("batch{}", batch)).string();
    t.engines = run_engines(model, inputs, bundle, provenance, peers, measurers, work_dir, settings, batch);
    t.max_pairwise_error = cross_check(t.engines, repeat_along_batch(read_tensor_pb(inputs + "/output_0.pb"), batch),
                                       settings.peak_rtol);
  } catch (const std::exception& e) {
    t.engines.clear();
    t.not_measured = e.what();
  }
  return t;
}

}  // namespace

int models_main(int argc, char** argv) {
  CLI::App app{"nee-bench --models: NEE against ONNX Runtime and OpenVINO on the model zoo"};
  bool models = false, quick = false, full = false, no_batch8 = false;
  std::string zoo, bundle_root, bundle_root_batch8, out_dir = "nee-bench-models", nee_tune;
  std::vector<std::string> names(std::begin(kZooModels), std::end(kZooModels));
  std::vector<std::string> peers = {"onnxruntime", "openvino"};
  RunSettings settings;
  settings.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Measurers measurers{(build_dir() / "bench" / "models" / "nee-model-runner").string(),
                      {(build_dir() / "peers-venv" / "bin" / "python").string(),
                       std::string(NEE_SOURCE_DIR) + "/bench/peers/run_peer.py"}};
  PeerSetup& peer = measurers.peer;
  app.add_flag("--models", models, "benchmark whole models (this mode)");
  app.add_option("--zoo", zoo, "zoo folder from tests/models/make_zoo.py (default: made now in the build folder)");
  app.add_flag("--full", full, "without --zoo: the full-size zoo instead of the --small one");
  app.add_option("--model", names, "zoo models, comma separated")->delimiter(',');
  app.add_option("--peers", peers, "peer engines, comma separated (onnxruntime, openvino)")->delimiter(',');
  app.add_option("--bundle-dir", bundle_root,
                 "folder with one bundle per model (<dir>/<model>); default: build them with default schedules");
  app.add_option("--bundle-dir-batch8", bundle_root_batch8,
                 "folder with one batch-8 bundle per model (<dir>/<model>, built by nee-tune --input-shape "
                 "input=8x...); default: build them with default schedules");
  app.add_flag("--no-batch8", no_batch8, "skip the batch-8 throughput runs (they double the run's length)");
  app.add_option("--threads", settings.threads, "threads for every engine")->check(CLI::Range(1, 1024));
  auto* warmup_opt = app.add_option("--warmup", settings.warmup, "untimed runs per engine")->check(CLI::Range(0, 100000));
  auto* runs_opt = app.add_option("--runs", settings.runs, "timed runs per engine")->check(CLI::Range(1, 1000000));
  auto* rounds_opt = app.add_option("--rounds", settings.rounds,
                                    "rounds the timed runs are split into, every engine once per round in a "
                                    "rotated order")
                         ->check(CLI::Range(1, 1000));
  app.add_option("--peak-rtol", settings.peak_rtol, "agreement: max |error| <= this x max |expected|");
  app.add_option("--out", out_dir, "folder for models.json, models.md, latency_ratios.svg and scratch files");
  auto* python_opt = app.add_option("--python", peer.python,
                                    "the peers' interpreter (default: <build>/peers-venv/bin/python, set up now by "
                                    "bench/peers/setup_peers.sh)");
  auto* peer_script_opt =
      app.add_option("--peer-script", peer.script, "test only: a stand-in for bench/peers/run_peer.py");
  app.add_option("--nee-tune", nee_tune, "nee-tune executable (default: <build>/tuner/nee-tune)");
  app.add_option("--nee-runner", measurers.nee_runner,
                 "the runtime-only program NEE is measured in (default: <build>/bench/models/nee-model-runner)");
  app.add_flag("--quick", quick, "a short run: the small zoo, 2 warm-up and 10 timed runs, no batch-8 runs");
  CLI11_PARSE(app, argc, argv);

  try {
    if (quick) {
      if (!warmup_opt->count()) settings.warmup = 2;
      if (!runs_opt->count()) settings.runs = 10;
      if (!rounds_opt->count()) settings.rounds = 1;
      full = false;
      no_batch8 = true;
    }
    if (nee_tune.empty()) nee_tune = (build_dir() / "tuner" / "nee-tune").string();
    const fs::path out = fs::absolute(out_dir);
    fs::create_directories(out);
    const std::string suffix = zoo.empty() && !full ? "_small" : "";
    if (zoo.empty()) {
      zoo = (build_dir() / (full ? "model-zoo" : "model-zoo-small")).string();
      fmt::print(stderr, "making the {} zoo in {} (cached after the first time)...\n", full ? "full" : "small", zoo);
      std::vector<std::string> cmd = {"/usr/bin/python3", std::string(NEE_SOURCE_DIR) + "/tests/models/make_zoo.py",
                                      zoo, "--models", fmt::format("{}", fmt::join(names, ","))};
      if (!full) cmd.push_back("--small");
      if (run_logged(cmd, (out / "make_zoo.log").string()) != 0) {
        throw Error("make_zoo.py failed, see " + (out / "make_zoo.log").string());
      }
    }

    // The default venv is nee-bench's own: made, or brought to the pinned versions, before
    // any run. A given interpreter is the user's and is left as it is.
    if (!python_opt->count() && !peer_script_opt->count() && !peers.empty()) {
      const fs::path venv = fs::path(peer.python).parent_path().parent_path();
      fmt::print(stderr, "setting up the peers in {} (cached after the first time)...\n", venv.string());
      const std::string log = (out / "setup_peers.log").string();
      if (run_logged({"/bin/bash", std::string(NEE_SOURCE_DIR) + "/bench/peers/setup_peers.sh", venv.string()}, log) !=
          0) {
        throw Error(fmt::format("setting up the peers failed: {} (log: {}); --python names an interpreter that has "
                                "them, --peers chooses fewer",
                                last_line_of(log), log));
      }
    }

    nlohmann::json info;
    info["machine"] = DeviceFingerprint::of_host().to_json();
    info["threads"] = settings.threads;
    info["warmup"] = settings.warmup;
    info["runs"] = settings.runs;
    info["rounds"] = settings.rounds;
    info["peak_rtol"] = settings.peak_rtol;
    info["zoo"] = zoo;
    info["peer_python"] = peer.python;
    info["nee_runner"] = measurers.nee_runner;
    info["throughput_batch"] = no_batch8 ? nlohmann::json() : nlohmann::json(kThroughputBatch);
    fmt::print("nee-bench --models: {} threads for every engine, {} timed runs at batch 1{} in {} rounds (each "
               "engine once per round, rotated, {} warm-up runs each time), zoo {}\n"
               "outputs checked against PyTorch and each other (peak-relative error <= {}) before any time; "
               "every engine in a process of its own (NEE: nee-model-runner, runtime only)\n\n",
               settings.threads, settings.runs,
               no_batch8 ? "" : fmt::format(" and at batch {}", kThroughputBatch), settings.rounds, settings.warmup, zoo,
               settings.peak_rtol);

    std::vector<ModelResult> results;
    nlohmann::json versions = {{"nee", kVersion}};
    for (const std::string& name : names) {
      ModelResult m;
      m.model = name + suffix;
      m.throughput.batch = kThroughputBatch;
      const fs::path folder = fs::path(zoo) / m.model;
      const std::string model = (folder / "model.onnx").string();
      const std::string inputs = (folder / "test_data_set_0").string();
      fmt::print(stderr, "{}: running NEE and {}...\n", m.model, fmt::join(peers, ", "));
      try {
        const auto [bundle, provenance] =
            bundle_for(m.model, model, inputs, 1, bundle_root, nee_tune, out, settings.threads);
        m.engines = run_engines(model, inputs, bundle, provenance, peers, measurers,
                                (out / "runs" / m.model).string(), settings, 1);
        for (const EngineRun& e : m.engines) {
          if (e.engine != "nee" && !e.version.empty()) versions[e.engine] = e.version;
        }
        m.max_pairwise_error = cross_check(m.engines, read_tensor_pb(inputs + "/output_0.pb"),
                                           settings.peak_rtol);
      } catch (const std::exception& e) {
        m.error = e.what();
      }
      if (!m.error.empty()) {
        m.throughput.not_measured = "the model could not be benchmarked";
      } else if (no_batch8) {
        m.throughput.not_measured = quick ? "--quick" : "--no-batch8";
      } else {
        fmt::print(stderr, "{}: running NEE and {} at batch {}...\n", m.model, fmt::join(peers, ", "),
                   kThroughputBatch);
        m.throughput = measure_throughput(m.model, model, inputs, bundle_root_batch8, nee_tune, out, peers,
                                          measurers, settings, kThroughputBatch);
      }
      fmt::print("{}\n", format_model_table(m));
      std::fflush(stdout);
      results.push_back(std::move(m));
    }
    info["versions"] = versions;
    write_report_file((out / "models.json").string(), models_to_json(results, info).dump(2) + "\n");
    write_report_file((out / "models.md").string(), format_markdown(results, info));
    write_report_file((out / "latency_ratios.svg").string(), ratio_chart_svg(results));
    fmt::print("wrote {}/models.json, models.md, latency_ratios.svg\n", out.string());
    for (const ModelResult& m : results) {
      if (!m.error.empty()) return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-bench --models: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace nee::bench
