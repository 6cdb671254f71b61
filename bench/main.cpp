// nee-bench: times NEE's tuned MatMul against its default schedule, Halide's
// autoscheduler and OpenBLAS on the same inputs and thread count, after checking every
// engine's output against the reference, and reports GFLOP/s, spread and ratios.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <thread>

#include "bench/comparison.h"
#include "bench/engines/engine_factory.h"
#include "bench/engines/openblas_engine.h"
#include "bench/models/models_main.h"
#include "bench/report.h"
#include "bench/suites.h"
#include "core/error.h"
#include "tuner/kernel_compiler.h"

int main(int argc, char** argv) {
  if (nee::bench::wants_models_mode(argc, argv)) return nee::bench::models_main(argc, argv);
  CLI::App app{"nee-bench: NEE's tuned MatMul against OpenBLAS and Halide's autoscheduler"};
  std::string db_path, suite = "all", json_path;
  std::vector<std::string> shapes;
  std::vector<std::string> engine_names = {"nee-tuned", "nee-default", "adams2019", "openblas"};
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool quick = false;
  nee::bench::CompareOptions options;
  app.add_option("--db", db_path, "tuning database (default: $NEE_DB or ~/.local/share/nee/tuning.db)");
  auto* suite_opt = app.add_option("--suite", suite, "shape suite")->check(CLI::IsMember(nee::bench::suite_names()));
  auto* shape_opt = app.add_option("--shape", shapes, "MatMul shape MxKxN or BxMxKxN (repeatable; replaces --suite)");
  app.add_option("--engines", engine_names, "engines, comma separated (" +
                                                 fmt::format("{}", fmt::join(nee::bench::engine_names(), ", ")) + ")")
      ->delimiter(',');
  app.add_option("--threads", threads, "threads for every engine (default: all cores)")->check(CLI::Range(1, 1024));
  auto* repeats_opt = app.add_option("--repeats", options.repeats, "timed rounds")->check(CLI::Range(1, 100000));
  auto* sample_opt = app.add_option("--min-sample-ms", options.min_sample_ms, "shortest timed sample")
                         ->check(CLI::Range(0.0, 1e6));
  app.add_option("--seed", options.seed, "seed of the random inputs");
  app.add_option("--json", json_path, "also write every figure and the machine description to this file");
  app.add_flag("--quick", quick,
               "a short run: 256 cubed unless --suite or --shape says otherwise, 3 rounds, 5 ms samples");
  CLI11_PARSE(app, argc, argv);

  try {
    if (quick) {
      if (!suite_opt->count() && !shape_opt->count()) shapes = {"256x256x256"};
      if (!repeats_opt->count()) options.repeats = 3;
      if (!sample_opt->count()) options.min_sample_ms = 5;
      options.warmup_ms = 10;
    }
    if (shapes.empty()) shapes = nee::bench::find_suite(suite).shapes;
    std::vector<nee::Workload> workloads;
    for (const std::string& s : shapes) workloads.push_back(nee::matmul_workload_from_shape(s));

    if (db_path.empty()) db_path = nee::TuningDatabase::default_path();
    const nee::TuningDatabase db(db_path);
    std::vector<std::unique_ptr<nee::bench::Engine>> engines = nee::bench::make_engines(engine_names, threads, &db);
    std::vector<nee::bench::Engine*> engine_ptrs;
    for (const auto& e : engines) engine_ptrs.push_back(e.get());

    nee::bench::RunInfo info;
    info.machine = nee::DeviceFingerprint::of_host().to_json();
    info.halide_target = nee::host_target(nee::TargetKind::cpu).halide;
    info.threads = threads;
    info.openblas_config = nee::bench::openblas_config();
    info.halide_version = nee::halide_version();
    info.database = db_path;
    info.options = options;
    fmt::print("nee-bench: {} threads | {} | {} | database {}\n", threads, info.halide_target, info.openblas_config,
               db_path);
    fmt::print("{} rounds, samples >= {} ms, engines interleaved round-robin; inputs uniform [-1,1) seed {}\n\n",
               options.repeats, options.min_sample_ms, options.seed);

    std::vector<nee::bench::WorkloadComparison> comparisons;
    std::vector<std::string> errors;
    for (size_t i = 0; i < workloads.size(); ++i) {
      fmt::print(stderr, "[{}/{}] {}: building and checking...\n", i + 1, workloads.size(), shapes[i]);
      try {
        comparisons.push_back(nee::bench::compare_engines(shapes[i], workloads[i], engine_ptrs, options));
        fmt::print("{}\n", nee::bench::format_table(comparisons.back()));
      } catch (const nee::Error& e) {
        errors.push_back(shapes[i] + ": " + e.what());
        fmt::print("MatMul {}: {}\n\n", shapes[i], e.what());
      }
      std::fflush(stdout);
    }
    const auto checks = nee::bench::target_checks(comparisons);
    fmt::print("{}", nee::bench::format_checks(checks));

    if (!json_path.empty()) {
      std::ofstream out(json_path);
      out << nee::bench::to_json(info, comparisons, errors, checks).dump(2) << "\n";
      if (!out) throw nee::Error("cannot write " + json_path);
    }
    return errors.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-bench: error: {}\n", e.what());
    return 1;
  }
}
