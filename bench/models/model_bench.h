#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bench/machine_load.h"
#include "bench/models/batched_inputs.h"
#include "runtime/tensor.h"

namespace nee::bench {

// Latency percentiles of single timed runs; p50/p90/p99 interpolate linearly between
// the sorted samples (the same rule as summarize()).
struct LatencySummary {
  int count = 0;
  double p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0;
};
// Throws nee::Error on an empty list.
LatencySummary summarize_latencies(std::vector<double> samples_ms);

// One engine's run of one model, measured in a process of its own (run_peer.py, or
// nee-model-runner for NEE), which reports its figures in a result JSON.
struct EngineRun {
  std::string engine;      // "nee", "onnxruntime", "openvino"
  int batch = 1;           // samples per run: the test data repeated along dim 0
  std::string version;
  std::string provenance;  // NEE: where its bundle came from
  std::string skipped;     // why it did not run (no venv, engine missing, it failed)
  std::string disagreement;  // why its output was rejected; its times are then withheld
  std::vector<Tensor> outputs;
  std::vector<double> latencies_ms;
  LatencySummary latency;
  int pid = 0;                    // the measuring process (of the first round)
  double process_startup_ms = 0;  // process start to the first run's outputs
  double session_startup_ms = 0;  // session creation (NEE: bundle load) to the first run's outputs
  double peak_rss_mib = 0;        // the measuring process's VmHWM
  LoadReading load;               // the machine's load around the engine's runs
  double error_vs_pytorch = -1;  // peak-relative error of output 0; -1: not compared
  double bundle_flop_share = -1;  // NEE: fraction of the model's FLOPs run by bundle kernels
  bool ran() const { return skipped.empty(); }
  bool timed() const { return skipped.empty() && disagreement.empty(); }
};

struct PeerSetup {
  std::string python;  // the peers' venv interpreter
  std::string script;  // run_peer.py, or a stand-in for tests
};

struct RunSettings {
  int threads = 1, warmup = 5, runs = 50;
  // The timed runs are split into this many rounds, each running every engine once (its
  // own warm-up, then its share of the runs) in an order rotated per round, so a slow
  // spell of a shared machine falls on every engine rather than on one.
  int rounds = 3;
  double peak_rtol = 1e-3;  // max |a - b| <= peak_rtol * max |b|
};

// One engine's rounds as one run: latencies pooled and summarized again; start-ups the
// median over rounds, peak RSS the largest, the loads combined, outputs, versions and
// pid from the first round.
// A round that was skipped makes the whole run skipped, with its reason. Throws
// nee::Error on an empty list.
EngineRun pool_rounds(std::vector<EngineRun> rounds);

// Runs every engine of `engines` for settings.rounds rounds through `run_one(engine,
// per_round_settings)`, where per_round_settings.runs is settings.runs / rounds (rounded
// up), round r starting at engine r mod n; returns one pooled run per engine, in the
// order of `engines`. `sampler` reads the machine's load before and after each call
// (EngineRun::load, against settings.threads).
std::vector<EngineRun> run_in_rounds(
    const std::vector<std::string>& engines, const RunSettings& settings,
    const std::function<EngineRun(const std::string& engine, const RunSettings& round)>& run_one,
    const LoadSampler& sampler = read_machine_load);

// Samples per second at the median: batch / p50 latency; 0 for a run without times.
double throughput(const EngineRun& run);

// Runs `engine` through the peer script in a subprocess (outputs and JSON under
// work_dir/engine) with the test inputs repeated to `batch` samples. A missing
// interpreter or script, an engine the venv lacks, or a failing run (a model whose batch
// dim is fixed, at batch > 1) gives an EngineRun whose `skipped` says why; it never
// throws for those.
EngineRun run_peer(const std::string& engine, const PeerSetup& peer, const std::string& model,
                   const std::string& inputs_dir, const std::string& work_dir, const RunSettings& settings,
                   int batch = 1);

// Runs the model with the bundle's kernels in `runner` (nee-model-runner, which links
// the runtime only), as run_peer runs a peer: outputs and JSON under work_dir/nee, every
// figure from that process. At batch > 1 the model is imported with its symbolic batch
// dim bound to `batch` and the test inputs repeated to match; the bundle should then be
// built for that batch (nee-tune --input-shape), or its kernels, keyed by batch-1
// workloads, are not found and the reference kernels run. A missing runner or a failing
// run gives an EngineRun whose `skipped` says why.
EngineRun run_nee(const std::string& runner, const std::string& model, const std::string& inputs_dir,
                  const std::string& bundle_dir, const std::string& work_dir, const RunSettings& settings,
                  int batch = 1);

// Checks every engine that ran against PyTorch's output 0 and against NEE's outputs
// (when NEE agrees with PyTorch); sets `disagreement` and clears the times of any engine
// that is off by more than peak_rtol. At batch N, pass PyTorch's batch-1 output repeated
// N times: the error is then the worst sample's, relative to the batch-1 output's peak. Returns the largest pairwise peak-relative error
// among the engines that ran.
double cross_check(std::vector<EngineRun>& runs, const Tensor& pytorch_output, double peak_rtol);

// Largest |got - want| / largest |want|; +inf for a shape/dtype mismatch or NaN.
double peak_relative_error(const Tensor& got, const Tensor& want);

// The last non-empty line of a log file (a failed tool's error), or "no message".
std::string last_line_of(const std::string& path);

// Runs argv (argv[0] searched in PATH) with stdout and stderr to log_path; returns its
// exit status (127 when it could not start, 128 + signal when killed), or -1 after an
// hour without finishing.
int run_logged(const std::vector<std::string>& argv, const std::string& log_path);

}  // namespace nee::bench
