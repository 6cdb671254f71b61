// nee-model-runner: NEE's side of `nee-bench --models`, in a process of its own that
// links only the runtime (no Halide, no LLVM), as a deployment runs a model. It does
// for NEE what bench/peers/run_peer.py does for ONNX Runtime and OpenVINO, with the same
// arguments and the same result JSON: load the bundle and the model, run once (start-up),
// write that run's outputs as output_<i>.pb, then warm up and time single runs.
// nee-bench inside its own process measured 322-1,244 MiB of peak RSS for NEE, most of
// it libHalide and LLVM, which a deployment never loads.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/models/batched_inputs.h"
#include "core/version.h"
#include "importer/import_onnx.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/passes/passes.h"
#include "runtime/profiling/flop_account.h"
#include "runtime/profiling/run_profile.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace {

namespace fs = std::filesystem;

// CLOCK_MONOTONIC, the clock of the --started-at-ns nee-bench passes (Python's
// time.monotonic_ns() reads the same one).
int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

double ms_between(int64_t from_ns, int64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1e6; }

// This process's peak RSS in KiB: VmHWM, as run_peer.py reads it.
int64_t peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  throw nee::Error("/proc/self/status has no VmHWM line");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nee-model-runner: runs an ONNX model with a NEE bundle and times it, for nee-bench --models"};
  std::string model, inputs_dir, outputs_dir, json_path, bundle;
  int threads = 1, warmup = 3, runs = 20, batch = 1;
  int64_t started_at_ns = 0;
  app.add_option("--model", model, "ONNX model")->required();
  app.add_option("--bundle", bundle, "kernel bundle folder built for the model")->required();
  app.add_option("--inputs", inputs_dir, "folder with input_<i>.pb")->required();
  app.add_option("--outputs", outputs_dir, "folder to write the first run's output_<i>.pb into")->required();
  app.add_option("--json", json_path, "result file")->required();
  app.add_option("--threads", threads, "threads of the bundle's kernels")->check(CLI::Range(1, 1024));
  app.add_option("--warmup", warmup, "untimed runs after the first")->check(CLI::Range(0, 1000000));
  app.add_option("--runs", runs, "timed runs")->check(CLI::Range(1, 1000000));
  app.add_option("--batch", batch, "the test inputs repeated along dim 0 this many times")->check(CLI::Range(1, 4096));
  app.add_option("--started-at-ns", started_at_ns,
                 "CLOCK_MONOTONIC when the caller started this process: start-up counts from there")
      ->required();
  CLI11_PARSE(app, argc, argv);

  try {
    const int64_t session_start_ns = monotonic_ns();
    nee::BundleLoadOptions load_options;
    load_options.model_path = model;
    load_options.threads = threads;
    std::vector<std::unique_ptr<nee::KernelProvider>> providers;
    providers.push_back(nee::make_bundle_provider(nee::KernelBundle::load(bundle, load_options)));
    // Shapes from the test data, at batch 1 too: that binds a symbolic batch dim without
    // the importer's warning that it chose 1.
    nee::Session session(nee::import_onnx(model, nee::bench::batched_input_shapes(inputs_dir, batch)),
                         std::move(providers), nee::SessionOptions{nee::optimize_graph});
    session.prepare();
    const std::map<std::string, nee::Tensor> inputs =
        nee::bench::read_batched_inputs(inputs_dir, session.graph().inputs(), batch);
    const std::map<std::string, nee::Tensor> first = session.run(inputs);
    const int64_t first_outputs_ns = monotonic_ns();

    fs::create_directories(outputs_dir);
    std::vector<std::string> output_paths;
    for (const std::string& name : session.graph().outputs()) {
      output_paths.push_back((fs::path(outputs_dir) / fmt::format("output_{}.pb", output_paths.size())).string());
      nee::write_tensor_pb(output_paths.back(), first.at(name), name);
    }
    for (int i = 0; i < warmup; ++i) session.run(inputs);
    std::vector<double> latencies;
    for (int i = 0; i < runs; ++i) {
      const int64_t t0 = monotonic_ns();
      session.run(inputs);
      latencies.push_back(ms_between(t0, monotonic_ns()));
    }

    const nlohmann::json result = {
        {"engine", "nee"},
        {"version", nee::kVersion},
        {"pid", static_cast<int64_t>(getpid())},
        {"process_startup_ms", ms_between(started_at_ns, first_outputs_ns)},
        {"session_startup_ms", ms_between(session_start_ns, first_outputs_ns)},
        {"latencies_ms", latencies},
        {"batch", batch},
        {"threads", threads},
        {"peak_rss_kib", peak_rss_kib()},
        {"outputs", output_paths},
        {"bundle_flop_share", nee::account_flops(nee::start_profile(session)).share("bundle")}};
    std::ofstream out(json_path);
    out << result.dump(2) << "\n";
    out.close();
    if (!out) throw nee::Error("cannot write " + json_path);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "nee-model-runner: error: " << e.what() << "\n";
    return 1;
  }
}
