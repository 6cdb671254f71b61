// nee-measure: checks and times one compiled kernel, in its own process. The tuner runs
// it per candidate under a time limit, so a kernel that crashes or hangs takes only this
// process down. It links no compiler: it runs where the kernels run (OpenCL on PoCL
// included, which cannot share a process with libHalide's LLVM).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "core/error.h"
#include "runtime/bundle/halide_kernel.h"
#include "tuner/measure/measurement.h"

int main(int argc, char** argv) {
  CLI::App app{"nee-measure: verify and time one compiled NEE kernel"};
  std::string library, symbol, workload_file;
  nee::MeasureOptions options;
  int threads = 0;
  app.add_option("--library", library, "shared library holding the kernel")->required();
  app.add_option("--symbol", symbol, "kernel symbol (without _argv)")->required();
  app.add_option("--workload", workload_file, "workload JSON file")->required();
  app.add_option("--seed", options.seed, "seed of the random inputs");
  app.add_option("--repeats", options.repeats, "timed samples")->check(CLI::Range(1, 1000));
  app.add_option("--min-sample-ms", options.min_sample_ms, "minimum length of one sample");
  app.add_option("--slow-cutoff-us", options.slow_cutoff_us, "fewer samples for kernels slower than this");
  app.add_option("--threads", threads, "Halide runtime threads (0: all cores)");
  CLI11_PARSE(app, argc, argv);

  nee::MeasureResult result;
  try {
    std::ifstream in(workload_file);
    if (!in) throw nee::Error("cannot read workload file '" + workload_file + "'");
    const nee::Workload workload = nee::Workload::from_json(nlohmann::json::parse(in));
    nee::SharedLibrary lib(library);
    if (threads > 0) nee::set_kernel_library_threads(lib, threads);
    nee::HalideKernel kernel(lib, symbol);
    kernel.check_signature(workload.inputs, workload.output);
    result = nee::measure_kernel(kernel, workload, options);
  } catch (const std::exception& e) {
    result.status = nee::MeasureStatus::runtime_error;
    result.error = e.what();
  }
  std::cout << result.to_json().dump() << std::endl;
  return 0;
}
