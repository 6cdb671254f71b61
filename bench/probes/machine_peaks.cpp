#include "bench/probes/machine_peaks.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "bench/probes/fma_probe.h"
#include "bench/probes/triad_probe.h"
#include "core/error.h"

namespace nee::bench {

namespace {

// About 25 ms per call at 130 GFLOP/s per core, long enough that starting the threads
// (tens of microseconds) does not count.
constexpr int64_t kFmaIterations = int64_t{1} << 24;

// Prints Google Benchmark's console table and keeps each repetition's rate (work per
// second of manual time) by benchmark name.
class RateReporter : public benchmark::ConsoleReporter {
 public:
  // Tabular without colour codes: the table usually lands in a log file.
  explicit RateReporter(std::map<std::string, double> work_per_call)
      : ConsoleReporter(OO_Tabular), work_per_call_(std::move(work_per_call)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      const std::string name = run.run_name.function_name;
      if (run.error_occurred) {
        errors_.push_back(name + ": " + run.error_message);
        continue;
      }
      const double seconds_per_call = run.real_accumulated_time / static_cast<double>(run.iterations);
      rates_[name].push_back(work_per_call_.at(name) / seconds_per_call);
    }
    ConsoleReporter::ReportRuns(runs);
  }

  const std::vector<double>& rates(const std::string& name) const {
    const auto it = rates_.find(name);
    if (it == rates_.end() || it->second.empty()) throw Error("the probe " + name + " reported no result");
    return it->second;
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, double> work_per_call_;
  std::map<std::string, std::vector<double>> rates_;
  std::vector<std::string> errors_;
};

double seconds_of(const std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

MachinePeaks measure_machine_peaks(const ProbeOptions& options) {
  MachinePeaks peaks;
  peaks.threads = options.threads;
  peaks.llc_bytes = last_level_cache_bytes();
  peaks.triad_bytes_per_array = static_cast<int64_t>(options.llc_multiple * static_cast<double>(peaks.llc_bytes));
  auto triad = std::make_shared<TriadProbe>(peaks.triad_bytes_per_array, options.threads);
  const double fma_flops = run_fma_probe(options.threads, 1);  // checks the CPU before anything is registered
  const double triad_bytes = 3.0 * static_cast<double>(triad->bytes_per_array());

  const std::string fma_name = std::string(fma_probe_lanes() == 16 ? "fma_avx512" : "fma_avx2") + "/threads:" +
                               std::to_string(options.threads);
  const std::string triad_name = "triad/threads:" + std::to_string(options.threads);
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark(fma_name.c_str(), [threads = options.threads](benchmark::State& state) {
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      run_fma_probe(threads, kFmaIterations);
      state.SetIterationTime(seconds_of(start));
    }
  })->UseManualTime()->Repetitions(options.repetitions)->MinTime(options.min_time_s);
  benchmark::RegisterBenchmark(triad_name.c_str(), [triad](benchmark::State& state) {
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      triad->run();
      state.SetIterationTime(seconds_of(start));
    }
  })->UseManualTime()->Repetitions(options.repetitions)->MinTime(options.min_time_s);

  RateReporter reporter({{fma_name, fma_flops * static_cast<double>(kFmaIterations)}, {triad_name, triad_bytes}});
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (!reporter.errors().empty()) throw Error("probe failed: " + reporter.errors().front());

  for (double r : reporter.rates(fma_name)) peaks.fma_gflops_samples.push_back(r / 1e9);
  for (double r : reporter.rates(triad_name)) peaks.triad_gbs_samples.push_back(r / 1e9);
  peaks.fma_gflops = *std::max_element(peaks.fma_gflops_samples.begin(), peaks.fma_gflops_samples.end());
  peaks.triad_gbs = *std::max_element(peaks.triad_gbs_samples.begin(), peaks.triad_gbs_samples.end());
  return peaks;
}

nlohmann::json to_json(const MachinePeaks& p) {
  return {{"threads", p.threads},
          {"fma_gflops", p.fma_gflops},
          {"fma_gflops_samples", p.fma_gflops_samples},
          {"triad_gbs", p.triad_gbs},
          {"triad_gbs_samples", p.triad_gbs_samples},
          {"llc_bytes", p.llc_bytes},
          {"triad_bytes_per_array", p.triad_bytes_per_array}};
}

}  // namespace nee::bench
