#include "tuner/cli/bundle_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "core/isa_level.h"
#include "tuner/cli/bundle_comparison.h"
#include "tuner/scheduling/progress_bar.h"

namespace nee {

namespace fs = std::filesystem;

// Warm-up runs on each bundle before the alternating ones.
constexpr int kWarmupRuns = 3;

static double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

BundleStage::BundleStage(BundleRequest request, InputShapes shapes, int timing_runs, std::string scratch)
    : request_(std::move(request)), shapes_(std::move(shapes)), timing_runs_(timing_runs) {
  default_request_ = request_;
  default_request_.use_database = false;
  default_request_.isa_levels = {host_isa_level().name};
  default_request_.output_dir = scratch + "/default-bundle";
  default_request_.signing_key.clear();
}

void BundleStage::build_default_bundle() {
  if (default_built_) return;
  build_bundle(nullptr, default_request_);
  default_built_ = true;
}

double BundleStage::prepare(const TuningDatabase& db) {
  const auto start = std::chrono::steady_clock::now();
  fmt::print("compiling the bundle's kernels before the search, so that the time budget holds them\n");
  std::fflush(stdout);
  compile_bundle_objects(&db, request_);
  double expected = 0;
  if (timing_runs_ > 0) {
    try {
      build_default_bundle();
      const auto probe_start = std::chrono::steady_clock::now();
      const BundleTimes probe = time_bundles_side_by_side(request_.model_path, shapes_, default_request_.output_dir,
                                                          default_request_.output_dir, 0, 1);
      const double run_s = std::max(probe.first.median_ms, probe.second.median_ms) / 1e3;
      // Twice: once more where kernels go back to their defaults.
      expected += 2 * (seconds_since(probe_start) + 2 * (kWarmupRuns + timing_runs_ - 1) * run_s);
    } catch (const Error&) {
      // finish() reports why the model cannot be timed; it takes no time then.
    }
  }
  BundleRequest rehearsal = request_;
  rehearsal.output_dir = fs::path(default_request_.output_dir).parent_path() / "bundle-rehearsal";
  rehearsal.signing_key.clear();
  const auto build_start = std::chrono::steady_clock::now();
  build_bundle(&db, rehearsal);
  expected += 2 * seconds_since(build_start);
  fs::remove_all(rehearsal.output_dir);
  fmt::print("compiled in {}; the bundle and its timing after the search are expected to take {}\n",
             format_duration(seconds_since(start)), format_duration(expected));
  std::fflush(stdout);
  return expected;
}

static void print_levels(const BundleManifest& m, const std::string& dir) {
  std::vector<std::string> levels;
  for (const BundleVariant& v : m.variants) {
    int tuned = 0;
    for (const auto& k : v.kernels) tuned += k.source == "tuned";
    levels.push_back(fmt::format("{} ({} tuned)", v.isa, tuned));
  }
  fmt::print("bundle {}: {} kernels for {}\n", dir, m.variants.empty() ? 0 : m.variants[0].kernels.size(),
             fmt::join(levels, ", "));
}

static void print_times(const BundleTimes& t) {
  fmt::print("measured model run: tuned bundle {} against the default bundle {}: {:.2f}x ({} level)\n",
             to_string(t.first), to_string(t.second), t.second.median_ms / t.first.median_ms, host_isa_level().name);
  std::fflush(stdout);
}

void BundleStage::finish(TuningDatabase& db, bool time_it) {
  BundleManifest m = build_bundle(&db, request_);
  print_levels(m, request_.output_dir);
  if (!time_it || timing_runs_ == 0) return;
  fmt::print("timing the tuned bundle against the default one ({} runs each, alternating{})\n", timing_runs_,
             default_built_ ? "" : "; building the default bundle first");
  std::fflush(stdout);
  // The tuning and the bundle are kept whatever happens here: a model that runs in
  // stages, or whose random inputs it refuses, is only not measured.
  try {
    build_default_bundle();
    const auto time_both = [&] {
      return time_bundles_side_by_side(request_.model_path, shapes_, request_.output_dir, default_request_.output_dir,
                                       kWarmupRuns, timing_runs_);
    };
    const BundleTimes t = time_both();
    print_times(t);
    int slower = 0;
    for (const auto& [record_id, times] : tuned_kernels_in_model(m, t, host_isa_level().name)) {
      db.set_in_model_times(record_id, times);
      slower += times.slower();
    }
    if (slower == 0) return;
    fmt::print("{} tuned kernel(s) ran over {:.0f}% slower in the model than their default schedules, as the database "
               "now records: building the bundle again with those defaults, and timing it again\n",
               slower, 100 * (kInModelMargin - 1));
    m = build_bundle(&db, request_);
    print_levels(m, request_.output_dir);
    print_times(time_both());
  } catch (const Error& e) {
    fmt::print("the model run was not measured: {}\n", e.what());
  }
}

}  // namespace nee
