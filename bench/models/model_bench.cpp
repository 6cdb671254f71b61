#include "bench/models/model_bench.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "bench/statistics.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "importer/import_onnx.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/output_comparison.h"
#include "runtime/profiling/flop_account.h"
#include "runtime/session.h"
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
  std::vector<double> startups = {pooled.startup_ms};
  for (size_t i = 1; i < rounds.size(); ++i) {
    const EngineRun& r = rounds[i];
    pooled.latencies_ms.insert(pooled.latencies_ms.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    startups.push_back(r.startup_ms);
    pooled.peak_rss_mib = std::max(pooled.peak_rss_mib, r.peak_rss_mib);
  }
  std::sort(startups.begin(), startups.end());
  pooled.startup_ms = percentile_of_sorted(startups, 0.5);
  pooled.latency = summarize_latencies(pooled.latencies_ms);
  return pooled;
}

std::vector<EngineRun> run_in_rounds(
    const std::vector<std::string>& engines, const RunSettings& settings,
    const std::function<EngineRun(const std::string& engine, const RunSettings& round)>& run_one) {
  RunSettings round = settings;
  round.rounds = std::max(1, settings.rounds);
  round.runs = (settings.runs + round.rounds - 1) / round.rounds;
  std::vector<std::vector<EngineRun>> by_engine(engines.size());
  for (int r = 0; r < round.rounds; ++r) {
    for (size_t k = 0; k < engines.size(); ++k) {
      const size_t i = (static_cast<size_t>(r) + k) % engines.size();
      by_engine[i].push_back(run_one(engines[i], round));
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

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// VmHWM of /proc/self/status in MiB; getrusage's ru_maxrss where that is unreadable.
double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

}  // namespace

double throughput(const EngineRun& run) {
  return run.timed() && run.latency.p50 > 0 ? run.batch * 1000.0 / run.latency.p50 : 0;
}

Tensor repeat_along_batch(const Tensor& t, int batch) {
  if (batch < 1) throw Error("batch " + std::to_string(batch) + " is not positive");
  if (t.shape().empty()) throw Error("a scalar tensor has no batch dim to repeat");
  if (batch == 1) return t;
  std::vector<int64_t> shape = t.shape();
  shape[0] *= batch;
  Tensor out(t.dtype(), shape);
  for (int i = 0; i < batch; ++i) std::memcpy(out.data_as<uint8_t>() + i * t.bytes(), t.data(), t.bytes());
  return out;
}

InputShapes batched_input_shapes(const std::string& inputs_dir, int batch) {
  InputShapes shapes;
  for (int i = 0;; ++i) {
    const std::string path = inputs_dir + "/input_" + std::to_string(i) + ".pb";
    if (!fs::exists(path)) break;
    std::string name;
    std::vector<int64_t> shape = read_tensor_pb(path, &name).shape();
    if (name.empty()) throw Error(path + " names no graph input, so its shape at batch " + std::to_string(batch) +
                                  " cannot be given");
    if (shape.empty()) throw Error(path + " holds a scalar, which has no batch dim");
    shape[0] *= batch;
    shapes[name] = shape;
  }
  if (shapes.empty()) throw Error("no input_0.pb in " + inputs_dir);
  return shapes;
}

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
  const fs::path dir = fs::path(work_dir) / engine;
  fs::create_directories(dir);
  const std::string json_path = (dir / "result.json").string(), log = (dir / "log.txt").string();
  fs::remove(json_path);
  const int rc = run_logged({peer.python, peer.script, "--engine", engine, "--model", model, "--inputs", inputs_dir,
                              "--outputs", (dir / "outputs").string(), "--json", json_path, "--threads",
                              std::to_string(settings.threads), "--warmup", std::to_string(settings.warmup),
                              "--runs", std::to_string(settings.runs), "--batch", std::to_string(batch)},
                             log);
  if (rc != 0 || !fs::exists(json_path)) {
    run.skipped = (rc == -1 ? "could not start " + peer.python : "exit status " + std::to_string(rc)) + ": " +
                  last_line_of(log);
    return run;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(json_path));
    run.version = j.at("version").get<std::string>();
    run.startup_ms = j.at("startup_ms").get<double>();
    run.latencies_ms = j.at("latencies_ms").get<std::vector<double>>();
    run.peak_rss_mib = j.at("peak_rss_kib").get<double>() / 1024.0;
    for (const auto& p : j.at("outputs")) run.outputs.push_back(read_tensor_pb(p.get<std::string>()));
    run.latency = summarize_latencies(run.latencies_ms);
  } catch (const std::exception& e) {
    run = EngineRun{};
    run.engine = engine;
    run.batch = batch;
    run.skipped = std::string("unreadable result: ") + e.what();
  }
  return run;
}

EngineRun run_nee(const std::string& model, const std::string& inputs_dir, const std::string& bundle_dir,
                  const RunSettings& settings, int batch) {
  EngineRun run;
  run.engine = "nee";
  run.batch = batch;
  try {
    // Writing 5 resets VmHWM to the current RSS, so the peak covers this model only.
    std::ofstream("/proc/self/clear_refs") << "5";
    const double start = now_ms();
    std::vector<std::unique_ptr<KernelProvider>> providers;
    providers.push_back(make_bundle_provider(
        KernelBundle::load(bundle_dir, BundleLoadOptions{model, TargetKind::cpu, settings.threads})));
    // Shapes from the test data, at batch 1 too: that binds a symbolic batch dim without
    // the importer's warning that it chose 1.
    Session session(import_onnx(model, batched_input_shapes(inputs_dir, batch)), std::move(providers));
    session.prepare();
    run.bundle_flop_share = account_flops(start_profile(session)).share("bundle");
    std::map<std::string, Tensor> inputs;
    const auto& names = session.graph().inputs();
    for (size_t i = 0; i < names.size(); ++i) {
      std::string name;
      Tensor t = read_tensor_pb(inputs_dir + "/input_" + std::to_string(i) + ".pb", &name);
      inputs[name.empty() ? names[i] : name] = repeat_along_batch(t, batch);
    }
    const auto outputs = session.run(inputs);
    run.startup_ms = now_ms() - start;
    for (const std::string& name : session.graph().outputs()) run.outputs.push_back(outputs.at(name));
    for (int i = 0; i < settings.warmup; ++i) session.run(inputs);
    for (int i = 0; i < settings.runs; ++i) {
      const double t0 = now_ms();
      session.run(inputs);
      run.latencies_ms.push_back(now_ms() - t0);
    }
    run.latency = summarize_latencies(run.latencies_ms);
    run.peak_rss_mib = peak_rss_mib();
  } catch (const std::exception& e) {
    run.skipped = e.what();
  }
  return run;
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
    r.startup_ms = 0;
    r.peak_rss_mib = 0;
  }
  return max_pairwise;
}

}  // namespace nee::bench
