// nee-measure: checks and times compiled kernels in a process of their own. The tuner runs
// it under a time limit, so a kernel that crashes or hangs takes only this process down:
// one process per candidate, or with --serve one for many CPU candidates in turn. It
// links no compiler: it runs where the kernels run (OpenCL on PoCL included, which cannot
// share a process with libHalide's LLVM). With --batch it measures a whole batch folder,
// each candidate in a child of its own; it is linked to need only the C library, so a
// copied batch folder runs on a machine without NEE's dependencies.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "tuner/measure/batch_measurement.h"
#include "tuner/measure/library_measurement.h"

int main(int argc, char** argv) {
  CLI::App app{"nee-measure: verify and time one compiled NEE kernel, or every kernel of a batch folder"};
  std::string library, symbol, workload_file, batch, fingerprint_kind;
  nee::MeasureOptions options;
  int threads = 0;
  app.add_option("--library", library, "shared library holding the kernel");
  app.add_option("--symbol", symbol, "kernel symbol (without _argv)");
  app.add_option("--workload", workload_file, "workload JSON file");
  app.add_option("--seed", options.seed, "seed of the random inputs");
  std::string reference_file;
  app.add_option("--reference", reference_file,
                 "the expected output on the seed's inputs, raw float32 as --batch stores it once per workload and "
                 "seed (default: computed here)");
  app.add_option("--repeats", options.repeats, "timed samples at most: timing stops once 3 lie within 2% of each other")
      ->check(CLI::Range(1, 1000));
  app.add_option("--number", options.number, "calls per sample, at least")->check(CLI::Range(1, 1000000));
  app.add_option("--min-sample-ms", options.min_sample_ms, "minimum length of one sample")->check(CLI::NonNegativeNumber);
  std::string cache = "warm";
  app.add_option("--cache", cache, "cache state of the timed calls: warm, or cold (the kernel's buffers evicted before each call)")
      ->check(CLI::IsMember({"warm", "cold"}));
  app.add_option("--best-us", options.best_us,
                 "the best median of the kernel's workload so far: kernels far slower get fewer samples (0: none)");
  app.add_option("--threads", threads, "threads of the kernel pool (0: all cores this process may use)");
  auto* batch_option = app.add_option("--batch", batch, "measure every task of this batch folder not measured yet");
  std::string launcher;
  app.add_option("--launcher", launcher,
                 "with --batch: a command each candidate's child process is started under, its words split at spaces, "
                 "e.g. 'taskset -c 1', or an emulator: 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' (qemu-user does "
                 "not follow a program's exec into a child of another architecture)")
      ->needs(batch_option);
  bool serve = false;
  app.add_flag("--serve", serve,
               "measure the candidates named on standard input, one JSON line each (library, symbol, workload_file, "
               "seed, best_us, reference_file), answering each with a result line: the tuner keeps one such process "
               "for many CPU candidates")
      ->excludes(batch_option);
  app.add_option("--fingerprint", fingerprint_kind, "print this machine's device fingerprint for a target kind")
      ->check(CLI::IsMember({"cpu", "opencl", "cuda"}))
      ->excludes(batch_option);
  CLI11_PARSE(app, argc, argv);
  options.cache = nee::cache_state_from_string(cache);

  if (!fingerprint_kind.empty()) {
    std::cout << nee::measuring_device(nee::target_kind_from_string(fingerprint_kind)).to_json().dump() << std::endl;
    return 0;
  }
  if (!batch.empty()) {
    try {
      // Each candidate runs in a child of this same program. Under a launcher the child
      // names it by path (an emulator's /proc/self/exe is the emulator), which
      // readlink gives even under qemu-user.
      std::vector<std::string> command;
      std::istringstream words(launcher);
      for (std::string word; words >> word;) command.push_back(word);
      command.push_back(launcher.empty() ? "/proc/self/exe" : std::filesystem::read_symlink("/proc/self/exe").string());
      const nee::BatchRunCounts counts = nee::run_batch(batch, command);
      std::cerr << "nee-measure: " << counts.measured << " measured, " << counts.already_measured
                << " already measured, " << counts.confirmed << " re-measured to confirm in " << batch << std::endl;
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "nee-measure: error: " << e.what() << std::endl;
      return 1;
    }
  }
  if (serve) {
    nee::serve_measurements(std::cin, std::cout, options, threads);
    return 0;
  }
  if (library.empty() || symbol.empty() || workload_file.empty()) {
    std::cerr << "nee-measure: give --library, --symbol and --workload, or --batch DIR, or --fingerprint KIND"
              << std::endl;
    return 2;
  }

  const nee::ChildMeasurement request{library, symbol, workload_file, options.seed, options.best_us, reference_file};
  const nee::MeasureResult result = nee::measure_child_request(request, options, threads);
  std::cout << result.to_json().dump() << std::endl;
  return 0;
}
