#include "runtime/bundle/halide_kernel.h"

#include <fmt/format.h>

#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/error.h"

namespace nee {

// Halide's default error handler aborts the process (e.g. "CUDA API not found" on a
// machine without a driver). Ours keeps the message so run() can throw it instead.
static thread_local std::string g_last_halide_error;

static void keep_halide_error(void*, const char* message) { g_last_halide_error = message ? message : ""; }

HalideKernel::HalideKernel(const SharedLibrary& library, const std::string& symbol) : symbol_(symbol) {
  using SetErrorHandler = void* (*)(void (*)(void*, const char*));
  if (auto set_handler = reinterpret_cast<SetErrorHandler>(library.find("halide_set_error_handler"))) {
    set_handler(keep_halide_error);
  }
  argv_ = reinterpret_cast<ArgvFunction>(library.require(symbol + "_argv"));
  auto metadata = reinterpret_cast<MetadataFunction>(library.require(symbol + "_metadata"));
  metadata_ = metadata();
  copy_to_host_ = reinterpret_cast<BufferFunction>(library.find("halide_copy_to_host"));
  device_free_ = reinterpret_cast<BufferFunction>(library.find("halide_device_free"));
}

void HalideKernel::check_signature(const std::vector<TensorType>& inputs, const TensorType& output) const {
  std::vector<const TensorType*> expected;
  for (const TensorType& t : inputs) expected.push_back(&t);
  expected.push_back(&output);
  if (metadata_->num_arguments != static_cast<int>(expected.size())) {
    throw Error(fmt::format("kernel '{}' takes {} arguments, the workload has {} tensors", symbol_,
                            metadata_->num_arguments, expected.size()));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const halide_filter_argument_t& arg = metadata_->arguments[i];
    const bool is_output = i + 1 == expected.size();
    const int kind = is_output ? halide_argument_kind_output_buffer : halide_argument_kind_input_buffer;
    if (arg.kind != kind) {
      throw Error(fmt::format("kernel '{}' argument '{}' is not an {} buffer", symbol_, arg.name,
                              is_output ? "output" : "input"));
    }
    if (arg.dimensions != static_cast<int32_t>(expected[i]->shape.size())) {
      throw Error(fmt::format("kernel '{}' argument '{}' has rank {}, the workload's tensor {}", symbol_,
                              arg.name, arg.dimensions, expected[i]->to_string()));
    }
    if (arg.type.code != halide_type_float || arg.type.bits != 32 || expected[i]->dtype != DType::f32) {
      throw Error(fmt::format("kernel '{}' argument '{}' is not f32 like {}", symbol_, arg.name,
                              expected[i]->to_string()));
    }
  }
}

namespace {

// A halide_buffer_t over a dense row-major tensor: Halide's dimension 0 is the last
// (contiguous) ONNX dimension.
struct BufferView {
  halide_buffer_t buffer{};
  std::vector<halide_dimension_t> dims;

  BufferView(const Tensor& t) {
    const int rank = static_cast<int>(t.shape().size());
    dims.resize(rank);
    int64_t stride = 1;
    for (int d = 0; d < rank; ++d) {
      const int64_t extent = t.shape()[rank - 1 - d];
      dims[d] = halide_dimension_t(0, static_cast<int32_t>(extent), static_cast<int32_t>(stride));
      stride *= extent;
    }
    buffer.host = static_cast<uint8_t*>(const_cast<void*>(t.data()));
    buffer.type = halide_type_t(halide_type_float, 32, 1);
    buffer.dimensions = rank;
    buffer.dim = dims.data();
    buffer.set_host_dirty(true);
  }
};

}  // namespace

void HalideKernel::run(const std::vector<const Tensor*>& inputs, Tensor& output) const {
  std::vector<BufferView> views;
  views.reserve(inputs.size() + 1);
  for (const Tensor* t : inputs) views.emplace_back(*t);
  views.emplace_back(output);
  views.back().buffer.set_host_dirty(false);
  std::vector<void*> args;
  for (BufferView& v : views) args.push_back(&v.buffer);

  g_last_halide_error.clear();
  const int status = argv_(args.data());
  int copy_status = 0;
  if (status == 0 && copy_to_host_ && views.back().buffer.device_dirty()) {
    copy_status = copy_to_host_(nullptr, &views.back().buffer);
  }
  if (device_free_) {
    for (BufferView& v : views) {
      if (v.buffer.device) device_free_(nullptr, &v.buffer);
    }
  }
  if (status != 0) {
    std::string message = g_last_halide_error;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw Error(fmt::format("kernel '{}' failed (Halide error {}): {}", symbol_, status, message));
  }
  if (copy_status != 0) {
    throw Error(fmt::format("kernel '{}': copying the output to the host failed ({})", symbol_, copy_status));
  }
}

static int usable_cpu_count() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) return CPU_COUNT(&cpus);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int attach_kernel_pool(const SharedLibrary& library, int threads, int spin_us) {
  if (threads < 0) throw Error(fmt::format("thread count must be 0 (all cores) or more, not {}", threads));
  if (spin_us < 0) throw Error(fmt::format("spin time must be 0 microseconds or more, not {}", spin_us));
  KernelPoolSettings settings;
  settings.threads = threads > 0 ? threads : usable_cpu_count();
  settings.spin_us = spin_us;
  configure_kernel_pool(settings);
  using SetParFor = halide_do_par_for_t (*)(halide_do_par_for_t);
  reinterpret_cast<SetParFor>(library.require("halide_set_custom_do_par_for"))(kernel_pool_do_par_for);
  // Loops that Halide hands to its task system instead (async stages, nested parallel
  // tasks; none of NEE's spaces schedule them) still run on its own pool: size it alike.
  using SetThreads = int (*)(int);
  reinterpret_cast<SetThreads>(library.require("halide_set_num_threads"))(settings.threads);
  return settings.threads;
}

}  // namespace nee
