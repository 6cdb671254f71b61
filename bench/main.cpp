// nee-bench: times NEE's tuned kernels (MatMul, conv2d) against their default schedules,
// Halide's autoschedulers, OpenBLAS and oneDNN on the same inputs and thread count,
// after checking every engine's output against the reference; measures the machine's
// FMA and memory-bandwidth ceilings, and reports GFLOP/s, spread, fraction of peak and
// ratios as a table, JSON, Markdown and SVG plots.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <unistd.h>

#include "bench/comparison.h"
#include "bench/engines/engine_factory.h"
#include "bench/engines/onednn_engine.h"
#include "bench/engines/openblas_engine.h"
#include "bench/gpu/gpu_main.h"
#include "bench/kernel_markdown.h"
#include "bench/kernel_plots.h"
#include "bench/machine_load.h"
#include "bench/models/models_main.h"
#include "bench/probes/machine_peaks.h"
#include "bench/report.h"
#include "bench/report_file.h"
#include "bench/suites.h"
#include "core/error.h"
#include "tuner/compile/kernel_compiler.h"

int main(int argc, char** argv) {
  // OpenBLAS reads OPENBLAS_CORETYPE when it loads, so forcing its kernels takes a restart.
  if (const std::string core = nee::bench::openblas_core_override(); !core.empty()) {
    setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
    execv("/proc/self/exe", argv);
  }
  if (nee::bench::wants_models_mode(argc, argv)) return nee::bench::models_main(argc, argv);
  if (nee::bench::wants_gpu_mode(argc, argv)) return nee::bench::gpu_main(argc, argv);
  CLI::App app{"nee-bench: NEE's tuned kernels against OpenBLAS, oneDNN and Halide's autoschedulers "
               "(--models: whole models against ONNX Runtime and OpenVINO; --gpu: cuBLAS and cuDNN)"};
  std::string db_path, suite = "all", json_path, markdown_path, plots_dir;
  std::vector<std::string> shapes;
  std::vector<std::string> engine_names;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool quick = false, skip_probes = false;
  nee::bench::CompareOptions options;
  nee::bench::ProbeOptions probe_options;
  app.add_option("--db", db_path, "tuning database (default: $NEE_DB or ~/.local/share/nee/tuning.db)");
  auto* suite_opt = app.add_option("--suite", suite, "shape suite")->check(CLI::IsMember(nee::bench::suite_names()));
  auto* shape_opt = app.add_option("--shape", shapes,
                                   "MatMul MxKxN or BxMxKxN, or conv2d NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG] "
                                   "(repeatable; replaces --suite)");
  app.add_option("--engines", engine_names,
                 "engines, comma separated (" + fmt::format("{}", fmt::join(nee::bench::engine_names(), ", ")) +
                     "; default: those that cover each workload's operator)")
      ->delimiter(',');
  app.add_option("--threads", threads, "threads for every engine and probe (default: all cores)")
      ->check(CLI::Range(1, 1024));
  auto* repeats_opt = app.add_option("--repeats", options.repeats, "timed rounds")->check(CLI::Range(1, 100000));
  auto* sample_opt = app.add_option("--min-sample-ms", options.min_sample_ms, "shortest timed sample")
                         ->check(CLI::Range(0.0, 1e6));
  app.add_option("--seed", options.seed, "seed of the random inputs");
  app.add_option("--json", json_path, "also write every figure and the machine description to this file");
  app.add_option("--markdown", markdown_path, "also write the report as Markdown to this file");
  app.add_option("--plots", plots_dir, "write ratios.svg and roofline.svg into this folder");
  app.add_flag("--skip-probes", skip_probes, "do not measure the FMA peak and memory bandwidth (no % peak, no roofline)");
  app.add_flag("--quick", quick,
               "a short run (under 2 minutes): 256 cubed and one ResNet-50 conv unless --suite or --shape says "
               "otherwise, 3 rounds, 5 ms samples, short probes");
  CLI11_PARSE(app, argc, argv);

  try {
    if (quick) {
      if (!suite_opt->count() && !shape_opt->count()) shapes = {"256x256x256", "1x64x56x56,64x3x3,p1"};
      if (!repeats_opt->count()) options.repeats = 3;
      if (!sample_opt->count()) options.min_sample_ms = 5;
      options.warmup_ms = 10;
      options.settle_ms = 50;
      probe_options.repetitions = 2;
      probe_options.min_time_s = 0.1;
      probe_options.llc_multiple = 2;
    }
    if (shapes.empty()) shapes = nee::bench::find_suite(suite).shapes;
    std::vector<nee::Workload> workloads;
    for (const std::string& s : shapes) workloads.push_back(nee::bench::workload_from_shape(s));

    // Every engine any workload needs, made once (they share one kernel workspace).
    std::vector<std::string> all_names = engine_names;
    if (engine_names.empty()) {
      for (const nee::Workload& w : workloads) {
        for (const std::string& n : nee::bench::default_engine_names(w.op)) {
          if (std::find(all_names.begin(), all_names.end(), n) == all_names.end()) all_names.push_back(n);
        }
      }
    }
    if (db_path.empty()) db_path = nee::TuningDatabase::default_path();
    const nee::TuningDatabase db(db_path);
    std::vector<std::unique_ptr<nee::bench::Engine>> engines = nee::bench::make_engines(all_names, threads, &db);

    nee::bench::RunInfo info;
    info.machine = nee::DeviceFingerprint::of_host().to_json();
    info.halide_target = nee::host_target(nee::TargetKind::cpu).halide;
    info.threads = threads;
    info.openblas_config = nee::bench::openblas_config();
    info.onednn_version = nee::bench::onednn_version();
    info.halide_version = nee::halide_version();
    info.database = db_path;
    options.threads = threads;
    info.options = options;
    fmt::print("nee-bench: {} threads | {} | {} | {} | database {}\n", threads, info.halide_target,
               info.openblas_config, info.onednn_version, db_path);
    if (!skip_probes) {
      probe_options.threads = threads;
      fmt::print("Machine probes (Google Benchmark, manual time; the rates below are the bench's ceilings):\n");
      std::fflush(stdout);
      nee::bench::LoadWatch load(nee::bench::read_machine_load, threads);
      info.peaks = nee::bench::measure_machine_peaks(probe_options);
      load.sample();
      info.peaks_load = load.reading();
      std::cout.flush();
      fmt::print("  FMA peak {:.1f} GFLOP/s, triad {:.1f} GB/s ({} MiB arrays, last-level cache {} MiB): best of {}\n",
                 info.peaks->fma_gflops, info.peaks->triad_gbs, info.peaks->triad_bytes_per_array >> 20,
                 info.peaks->llc_bytes >> 20, info.peaks->fma_gflops_samples.size());
      if (info.peaks_load.loaded()) fmt::print("  WARNING: {}\n", info.peaks_load.warning());
    }
    fmt::print("{} rounds, samples >= {} ms, engines interleaved round-robin; inputs uniform [-1,1) seed {}\n"
               "GFLOP/s: the direct algorithm's FLOPs (every engine alike); exec GFLOP/s: those the engine's kernel "
               "executes; % peak: exec GFLOP/s over the FMA peak\n\n",
               options.repeats, options.min_sample_ms, options.seed);

    std::vector<nee::bench::WorkloadComparison> comparisons;
    std::vector<std::string> errors;
    for (size_t i = 0; i < workloads.size(); ++i) {
      const std::vector<std::string> wanted =
          engine_names.empty() ? nee::bench::default_engine_names(workloads[i].op) : engine_names;
      std::vector<nee::bench::Engine*> engine_ptrs;
      for (const auto& e : engines) {
        if (std::find(wanted.begin(), wanted.end(), e->name()) != wanted.end()) engine_ptrs.push_back(e.get());
      }
      fmt::print(stderr, "[{}/{}] {}: building and checking...\n", i + 1, workloads.size(), shapes[i]);
      try {
        comparisons.push_back(nee::bench::compare_engines(shapes[i], workloads[i], engine_ptrs, options));
        fmt::print("{}\n", nee::bench::format_table(comparisons.back(), info.peaks));
      } catch (const nee::Error& e) {
        errors.push_back(shapes[i] + ": " + e.what());
        fmt::print("{} {}: {}\n\n", workloads[i].op, shapes[i], e.what());
      }
      std::fflush(stdout);
    }
    const auto checks = nee::bench::target_checks(comparisons);
    fmt::print("{}", nee::bench::format_checks(checks));

    if (!json_path.empty()) {
      nee::bench::write_report_file(json_path, nee::bench::to_json(info, comparisons, errors, checks).dump(2) + "\n");
    }
    std::string plots_link;
    if (!plots_dir.empty()) {
      const auto written = nee::bench::write_kernel_plots(plots_dir, comparisons, info.peaks);
      fmt::print("wrote {} into {}\n", fmt::join(written, ", "), plots_dir);
      if (!markdown_path.empty()) {
        plots_link = std::filesystem::relative(std::filesystem::absolute(plots_dir),
                                               std::filesystem::absolute(markdown_path).parent_path())
                         .string();
      }
    }
    if (!markdown_path.empty()) {
      nee::bench::write_report_file(markdown_path,
                                    nee::bench::format_kernel_markdown(info, comparisons, errors, checks, plots_link));
    }
    return errors.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-bench: error: {}\n", e.what());
    return 1;
  }
}
