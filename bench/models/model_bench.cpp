#include "bench/models/model_bench.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "bench/statistics.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "runtime/output_comparison.h"
#include "runtime/tensor_io.h"

namespace nee::bench {
namespace fs = std::filesystem;

LatencySummary summarize_latencies(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw Error("no latencies to summarize");
  std::sort(samples_ms.begin(), samples_ms.end());
  LatencySummary s;
  s.count = static_cast<int>(samples_ms.size());
  s.p50 = percentile_of_sorted(samples_ms, 0.5);
  s.p90 = percentile_of_sorted(samples_ms, 0.9);
  s.p99 = percentile_of_sorted(samples_ms, 0.99);
  s.min = samples_ms.front();
  s.max = samples_ms.back();
  return s;
}

EngineRun pool_rounds(std::vector<EngineRun> rounds) {
  if (rounds.empty()) throw Error("no rounds to pool");
  for (EngineRun& r : rounds) {
    if (!r.ran()) return std::move(r);
  }
  EngineRun pooled = std::move(rounds.front());
  std::vector<double> process_startups = {pooled.process_startup_ms}, session_startups = {pooled.session_startup_ms};
  for (size_t i = 1; i < rounds.size(); ++i) {
    const EngineRun& r = rounds[i];
    pooled.latencies_ms.insert(pooled.latencies_ms.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    process_startups.push_back(r.process_startup_ms);
    session_startups.push_back(r.session_startup_ms);
    pooled.peak_rss_mib = std::max(pooled.peak_rss_mib, r.peak_rss_mib);
    pooled.load = combine(pooled.load, r.load);
  }
  std::sort(process_startups.begin(), process_startups.end());
  std::sort(session_startups.begin(), session_startups.end());
  pooled.process_startup_ms = percentile_of_sorted(process_startups, 0.5);
  pooled.session_startup_ms = percentile_of_sorted(session_startups, 0.5);
  pooled.latency = summarize_latencies(pooled.latencies_ms);
  return pooled;
}

std::vector<EngineRun> run_in_rounds(
    const std::vector<std::string>& engines, const RunSettings& settings,
    const std::function<EngineRun(const std::string& engine, const RunSettings& round)>& run_one,
    const LoadSampler& sampler) {
  RunSettings round = settings;
  round.rounds = std::max(1, settings.rounds);
  round.runs = (settings.runs + round.rounds - 1) / round.rounds;
  std::vector<std::vector<EngineRun>> by_engine(engines.size());
  for (int r = 0; r < round.rounds; ++r) {
    for (size_t k = 0; k < engines.size(); ++k) {
      const size_t i = (static_cast<size_t>(r) + k) % engines.size();
      LoadWatch load(sampler, settings.threads);
      EngineRun run = run_one(engines[i], round);
      load.sample();
      run.load = load.reading();
      by_engine[i].push_back(std::move(run));
    }
  }
  std::vector<EngineRun> pooled;
  for (auto& runs : by_engine) pooled.push_back(pool_rounds(std::move(runs)));
  return pooled;
}

int run_logged(const std::vector<std::string>& argv, const std::string& log_path) {
  // An hour covers exporting the full zoo; a peer that hangs past it is reported as failed.
  const ProcessResult r = nee::run_process(argv, 3600, /*merge_stderr=*/true);
  std::ofstream(log_path) << r.output;
  if (r.timed_out) return -1;
  return r.exited ? r.exit_code : 128 + r.signal;
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no message" : last;
}

double throughput(const EngineRun& run) {
  return run.timed() && run.latency.p50 > 0 ? run.batch * 1000.0 / run.latency.p50 : 0;
}

namespace {

// CLOCK_MONOTONIC: the measuring processes time their start-up from this reading.
int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// Starts one engine's measuring process, `command` followed by the arguments run_peer.py
// and nee-model-runner share, and reads the result JSON they both write.
EngineRun run_measuring_process(const std::string& engine, std::vector<std::string> command,
                                const std::string& model, const std::string& inputs_dir, const std::string& work_dir,
                                const RunSettings& settings, int batch) {
  EngineRun run;
  run.engine = engine;
  run.batch = batch;
  const fs::path dir = fs::path(work_dir) / engine;
  fs::create_directories(dir);
  const std::string json_path = (dir / "result.json").string(), log = (dir / "log.txt").string();
  fs::remove(json_path);
  const std::vector<std::string> shared = {
      "--model", model, "--inputs", inputs_dir, "--outputs", (dir / "outputs").string(), "--json", json_path,
      "--threads", std::to_string(settings.threads), "--warmup", std::to_string(settings.warmup), "--runs",
      std::to_string(settings.runs), "--batch", std::to_string(batch), "--started-at-ns"};
  command.insert(command.end(), shared.begin(), shared.end());
  // Taken last, so start-up counts from the fork of this process.
  command.push_back(std::to_string(monotonic_ns()));
  const int rc = run_logged(command, log);
  if (rc != 0 || !fs::exists(json_path)) {
    run.skipped = (rc == -1 ? "no result within an hour" : "exit status " + std::to_string(rc)) + ": " +
                  last_line_of(log);
    return run;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json_path));
    run.version = j.at("version").get<std::string>();
    run.pid = j.at("pid").get<int>();
    run.process_startup_ms = j.at("process_startup_ms").get<double>();
    run.session_startup_ms = j.at("session_startup_ms").get<double>();
    run.latencies_ms = j.at("latencies_ms").get<std::vector<double>>();
    run.peak_rss_mib = j.at("peak_rss_kib").get<double>() / 1024.0;
    if (j.contains("bundle_flop_share")) run.bundle_flop_share = j.at("bundle_flop_share").get<double>();
    for (const auto& p : j.at("outputs")) run.outputs.push_back(read_tensor_pb(p.get<std::string>()));
    run.latency = summarize_latencies(run.latencies_ms);
  } catch (const std::exception& e) {
    run = EngineRun{};
    run.engine = engine;
    run.batch = batch;
    run.skipped = "unreadable result " + json_path + ": " + e.what();
  }
  return run;
}

}  // namespace

EngineRun run_peer(const std::string& engine, const PeerSetup& peer, const std::string& model,
                   const std::string& inputs_dir, const std::string& work_dir, const RunSettings& settings,
                   int batch) {
  EngineRun run;
  run.engine = engine;
  run.batch = batch;
  if (!fs::exists(peer.python)) {
    run.skipped = "no peer interpreter at " + peer.python + " (run bench/peers/setup_peers.sh)";
    return run;
  }
  if (!fs::exists(peer.script)) {
    run.skipped = "no peer script at " + peer.script;
    return run;
  }
  return run_measuring_process(engine, {peer.python, peer.script, "--engine", engine}, model, inputs_dir, work_dir,
                               settings, batch);
}

EngineRun run_nee(const std::string& runner, const std::string& model, const std::string& inputs_dir,
                  const std::string& bundle_dir, const std::string& work_dir, const RunSettings& settings, int batch) {
  if (!fs::exists(runner)) {
    EngineRun run;
    run.engine = "nee";
    run.batch = batch;
    run.skipped = "no nee-model-runner at " + runner + " (build the nee-model-runner target)";
    return run;
  }
  return run_measuring_process("nee", {runner, "--bundle", bundle_dir}, model, inputs_dir, work_dir, settings, batch);
}

double peak_relative_error(const Tensor& got, const Tensor& want) {
  const Comparison c = compare_tensors(got, want, 0, 0);
  if (!c.problem.empty() && c.problem != "values differ") return std::numeric_limits<double>::infinity();
  return std::isnan(c.peak_rel_error) ? std::numeric_limits<double>::infinity() : c.peak_rel_error;
}

double cross_check(std::vector<EngineRun>& runs, const Tensor& pytorch_output, double peak_rtol) {
  const auto fmt_err = [](double e) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", e);
    return std::string(buf);
  };
  const EngineRun* nee = nullptr;
  for (EngineRun& r : runs) {
    if (!r.ran()) continue;
    if (r.outputs.empty()) {
      r.disagreement = "produced no output";
    } else {
      r.error_vs_pytorch = peak_relative_error(r.outputs[0], pytorch_output);
      if (!(r.error_vs_pytorch <= peak_rtol)) {
        r.disagreement = "output 0 differs from PyTorch's by " + fmt_err(r.error_vs_pytorch) + " of its peak";
      }
    }
    if (r.engine == "nee" && r.disagreement.empty()) nee = &r;
  }
  double max_pairwise = 0;
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      if (!runs[a].ran() || !runs[b].ran() || runs[a].outputs.empty() || runs[b].outputs.empty()) continue;
      const size_t n = std::min(runs[a].outputs.size(), runs[b].outputs.size());
      for (size_t i = 0; i < n; ++i) {
        max_pairwise = std::max(max_pairwise, peak_relative_error(runs[a].outputs[i], runs[b].outputs[i]));
      }
    }
  }
  // Every output (not only output 0) of each peer against NEE's, when NEE agrees with PyTorch.
  for (EngineRun& r : runs) {
    if (!nee || &r == nee || !r.ran() || !r.disagreement.empty()) continue;
    if (r.outputs.size() != nee->outputs.size()) {
      r.disagreement = "has " + std::to_string(r.outputs.size()) + " outputs, NEE " +
                       std::to_string(nee->outputs.size());
      continue;
    }
    for (size_t i = 0; i < r.outputs.size() && r.disagreement.empty(); ++i) {
      const double e = peak_relative_error(r.outputs[i], nee->outputs[i]);
      if (!(e <= peak_rtol)) {
        r.disagreement = "output " + std::to_string(i) + " differs from NEE's by " + fmt_err(e) + " of its peak";
      }
    }
  }
  for (EngineRun& r : runs) {
    if (r.disagreement.empty()) continue;
    r.latencies_ms.clear();
    r.latency = {};
    r.process_startup_ms = 0;
    r.session_startup_ms = 0;
    r.peak_rss_mib = 0;
  }
  return max_pairwise;
}

}  // namespace nee::bench
