#include "bench/gpu/gpu_main.h"

#include <CLI/CLI.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "bench/comparison.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/nee_engine.h"
#include "bench/gpu/cublas_engine.h"
#include "bench/gpu/cudnn_engine.h"
#include "bench/report.h"
#include "bench/suites.h"
#include "core/error.h"

namespace nee::bench {

int gpu_main(int argc, char** argv) {
  CLI::App app{"nee-bench --gpu: cuBLAS sgemm and cuDNN convolution on the CUDA device"};
  bool gpu = false, quick = false;
  std::vector<std::string> suite_list = {"square", "resnet50-conv"};
  std::vector<std::string> shapes;
  CompareOptions options;
  app.add_flag("--gpu", gpu, "benchmark on the CUDA device (this mode)");
  app.add_option("--suite", suite_list, "suites, comma separated")->delimiter(',');
  app.add_option("--shape", shapes, "MatMul or conv2d shapes (repeatable; replace --suite)");
  app.add_option("--repeats", options.repeats, "timed rounds")->check(CLI::Range(1, 100000));
  app.add_flag("--quick", quick, "256 cubed and one ResNet-50 conv, 3 rounds");
  std::string db_path;
  app.add_option("--db", db_path, "tuning database whose CUDA records NEE's kernels are built from (default: "
                                  "the default schedules)")->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);

  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    fmt::print("nee-bench --gpu: skipped: no CUDA device ({}); no GPU figures are reported\n",
               status != cudaSuccess ? fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status))
                                     : std::string("cudaGetDeviceCount found 0 devices"));
    return 0;
  }
  try {
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (quick) {
      if (shapes.empty()) shapes = {"256x256x256", "1x64x56x56,64x3x3,p1"};
      options.repeats = 3;
      options.min_sample_ms = 5;
      options.settle_ms = 20;
    }
    if (shapes.empty()) {
      for (const std::string& s : suite_list) {
        const Suite& suite = find_suite(s);
        shapes.insert(shapes.end(), suite.shapes.begin(), suite.shapes.end());
      }
    }
    fmt::print("nee-bench --gpu: {} (compute capability {}.{}); NEE's CUDA kernels against cuBLAS for MatMul and "
               "cuDNN for conv2d, every operand resident on the device\n\n",
               prop.name, prop.major, prop.minor);
    std::optional<TuningDatabase> db;
    if (!db_path.empty()) db.emplace(db_path);
    NeeEngine nee(std::make_shared<KernelWorkspace>(1), NeeSchedule::tuned, db ? &*db : nullptr, TargetKind::cuda);
    CublasEngine cublas;
    CudnnEngine cudnn;
    int failures = 0;
    for (const std::string& shape : shapes) {
      const Workload w = workload_from_shape(shape);
      Engine* vendor = w.op == "matmul" ? static_cast<Engine*>(&cublas) : static_cast<Engine*>(&cudnn);
      try {
        fmt::print("{}\n", format_table(compare_engines(shape, w, {&nee, vendor}, options), std::nullopt));
      } catch (const Error& e) {
        ++failures;
        fmt::print("{} {}: {}\n\n", w.op, shape, e.what());
      }
      std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-bench --gpu: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace nee::bench
