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
#include "bench/kernel_markdown.h"
#include "bench/report.h"
#include "bench/report_file.h"
#include "bench/suites.h"
#include "core/error.h"
#include "core/family.h"
#include "core/target.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee::bench {

namespace {

// The device and the versions of the CUDA libraries this run used, for the report.
// A version a call failed to read is null, not 0.
nlohmann::json gpu_description(const cudaDeviceProp& prop) {
  const auto cuda_version = [](cudaError_t (*get)(int*)) {
    int v = 0;
    return get(&v) == cudaSuccess ? nlohmann::json(fmt::format("{}.{}", v / 1000, v % 1000 / 10)) : nlohmann::json();
  };
  int major = 0, minor = 0, patch = 0;
  const bool cublas_read = cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
                           cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
                           cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS;
  return {{"name", prop.name},
          {"compute_capability", fmt::format("{}.{}", prop.major, prop.minor)},
          {"memory_gib", static_cast<double>(prop.totalGlobalMem) / (1ull << 30)},
          {"multiprocessors", prop.multiProcessorCount},
          {"cuda_driver", cuda_version(cudaDriverGetVersion)},
          {"cuda_runtime", cuda_version(cudaRuntimeGetVersion)},
          {"cublas", cublas_read ? nlohmann::json(fmt::format("{}.{}.{}", major, minor, patch)) : nlohmann::json()},
          {"cudnn", std::to_string(cudnnGetVersion())}};
}

}  // namespace

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
  std::string db_path, json_path, markdown_path;
  app.add_option("--db", db_path, "tuning database whose CUDA records NEE's kernels are built from (default: "
                                  "the default schedules)")->check(CLI::ExistingFile);
  app.add_option("--json", json_path, "also write every figure, the machine and the GPU's library versions here");
  app.add_option("--markdown", markdown_path, "also write the report as Markdown to this file");
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
    RunInfo info;
    info.machine = DeviceFingerprint::of_host().to_json();
    info.halide_target = host_target(TargetKind::cuda).halide;
    info.threads = 1;
    info.halide_version = halide_version();
    info.database = db_path.empty() ? "none (default schedules)" : db_path;
    info.options = options;
    info.gpu = gpu_description(prop);
    NeeEngine nee(std::make_shared<KernelWorkspace>(1), NeeSchedule::tuned, db ? &*db : nullptr, TargetKind::cuda);
    // Each vendor library is set up at its first workload, so one that fails to load (a
    // cuDNN sub-library, a driver too old for it) costs its own op's rows only.
    std::unique_ptr<Engine> cublas, cudnn;
    std::vector<WorkloadComparison> comparisons;
    std::vector<std::string> errors;
    for (const std::string& shape : shapes) {
      const Workload w = workload_from_shape(shape);
      try {
        std::unique_ptr<Engine>& vendor = family_of(w).id == FamilyId::matmul ? cublas : cudnn;
        if (!vendor) {
          if (family_of(w).id == FamilyId::matmul) {
            vendor = std::make_unique<CublasEngine>();
          } else {
            vendor = std::make_unique<CudnnEngine>();
          }
        }
        comparisons.push_back(compare_engines(shape, w, {&nee, vendor.get()}, options));
        fmt::print("{}\n", format_table(comparisons.back(), std::nullopt));
      } catch (const Error& e) {
        errors.push_back(shape + ": " + e.what());
        fmt::print("{} {}: {}\n\n", w.op, shape, e.what());
      }
      std::fflush(stdout);
    }
    if (!json_path.empty()) write_report_file(json_path, to_json(info, comparisons, errors, {}).dump(2) + "\n");
    if (!markdown_path.empty()) {
      write_report_file(markdown_path, format_kernel_markdown(info, comparisons, errors, {}, ""));
    }
    return errors.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-bench --gpu: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace nee::bench
