#include "bench/comparison.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "runtime/reference/family_reference.h"
#include "tuner/measure/measurement.h"

namespace nee::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Checks `got` against the reference; returns the largest difference, throws naming the
// engine and the first element out of tolerance (a NaN counts as out of tolerance).
double check_against_reference(const std::string& engine, const std::string& when, const Tensor& got,
                               const Tensor& want, double atol, double rtol) {
  const float* g = got.data_as<float>();
  const float* w = want.data_as<float>();
  double max_diff = 0;
  for (int64_t i = 0; i < got.elements(); ++i) {
    const double diff = std::fabs(static_cast<double>(g[i]) - w[i]);
    if (!(diff <= atol + rtol * std::fabs(w[i]))) {
      throw Error(fmt::format("cross-check failed {}: engine '{}' output element {} is {} where the reference "
                              "gives {}; no times are reported for this workload",
                              when, engine, i, g[i], w[i]));
    }
    max_diff = std::max(max_diff, diff);
  }
  return max_diff;
}

double max_difference(const Tensor& a, const Tensor& b) {
  const float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  double d = 0;
  for (int64_t i = 0; i < a.elements(); ++i) d = std::max(d, std::fabs(static_cast<double>(pa[i]) - pb[i]));
  return d;
}

void fill_nan(Tensor& t) { std::fill(t.data_as<float>(), t.data_as<float>() + t.elements(), NAN); }

}  // namespace

WorkloadComparison compare_engines(const std::string& label, const Workload& workload,
                                   const std::vector<Engine*>& engines, const CompareOptions& options,
                                   const LoadSampler& sampler) {
  if (family_of(workload).id != FamilyId::matmul && family_of(workload).id != FamilyId::conv2d) {
    throw Error("the bench compares matmul and conv2d workloads, not " + workload.op);
  }
  WorkloadComparison result{label, workload, {}, {}, 0, {}};

  std::vector<Engine*> ready;
  for (Engine* e : engines) {
    try {
      e->prepare(workload);
      ready.push_back(e);
    } catch (const std::exception& ex) {
      result.skipped.push_back({e->name(), ex.what()});
    }
  }

  std::mt19937_64 rng(options.seed);
  std::vector<Tensor> inputs;
  for (const TensorType& t : workload.inputs) inputs.push_back(random_input(t, rng));
  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) input_ptrs.push_back(&t);
  Tensor expected(workload.output);
  compute_reference(workload, input_ptrs, expected);
  const double atol = options.atol_per_k * static_cast<double>(family_of(workload).reduction_length(workload));

  // Verify before timing. Outputs start as NaN so an engine that leaves elements
  // unwritten fails the check.
  std::vector<Tensor> outputs;
  std::vector<Engine*> checked;
  for (Engine* e : ready) {
    Tensor output(workload.output);
    fill_nan(output);
    try {
      e->bind_inputs(input_ptrs);
      e->run(input_ptrs, output);
      e->finish_output(output);
    } catch (const std::exception& ex) {
      result.skipped.push_back({e->name(), std::string("run failed: ") + ex.what()});
      continue;
    }
    checked.push_back(e);
    outputs.push_back(output);
    EngineTiming timing;
    timing.engine = e->name();
    timing.provenance = e->provenance();
    timing.implementation = e->implementation();
    const ExecutedWork work = e->executed_work(workload);
    timing.executed_flops = work.flops;
    timing.executed_method = work.method;
    timing.max_abs_error = check_against_reference(e->name(), "before timing", outputs.back(), expected, atol, options.rtol);
    result.engines.push_back(std::move(timing));
  }
  ready = checked;
  // Agreement between engines follows from each agreeing with the reference; the
  // largest pairwise difference is kept as a figure for the report.
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      result.max_pairwise_difference = std::max(result.max_pairwise_difference, max_difference(outputs[i], outputs[j]));
    }
  }

  LoadWatch load(sampler, options.threads);
  for (size_t i = 0; i < ready.size(); ++i) {
    int calls = 0;
    const auto start = Clock::now();
    while (calls < 2 || ms_since(start) < options.warmup_ms) {
      ready[i]->run(input_ptrs, outputs[i]);
      ++calls;
    }
    const double per_call_ms = ms_since(start) / calls;
    result.engines[i].calls_per_sample = std::max(1, static_cast<int>(std::ceil(options.min_sample_ms / per_call_ms)));
  }

  const size_t n = ready.size();
  for (int round = 0; round < options.repeats; ++round) {
    for (size_t step = 0; step < n; ++step) {
      const size_t i = (static_cast<size_t>(round) + step) % n;
      EngineTiming& t = result.engines[i];
      // OpenBLAS's and Halide's workers spin for a while after a call; an engine timed
      // right after another would share the cores with those spinning threads (seen
      // here: the tuned 1024 kernel at 30.8 ms after OpenBLAS, 16.2 ms alone). So each
      // sample starts after a pause and one untimed call of its own engine.
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.settle_ms));
      ready[i]->run(input_ptrs, outputs[i]);
      const auto start = Clock::now();
      for (int c = 0; c < t.calls_per_sample; ++c) ready[i]->run(input_ptrs, outputs[i]);
      t.samples_ms.push_back(ms_since(start) / t.calls_per_sample);
    }
    load.sample();
  }
  result.load = load.reading();

  for (size_t i = 0; i < n; ++i) {
    EngineTiming& t = result.engines[i];
    ready[i]->finish_output(outputs[i]);
    t.max_abs_error = std::max(
        t.max_abs_error, check_against_reference(t.engine, "after timing", outputs[i], expected, atol, options.rtol));
    if (!t.samples_ms.empty()) t.ms = summarize(t.samples_ms);
  }
  return result;
}

}  // namespace nee::bench
