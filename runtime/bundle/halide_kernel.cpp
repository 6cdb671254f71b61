#include "runtime/bundle/halide_kernel.h"

#include <fmt/format.h>

#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/cuda_device.h"
#include "core/error.h"
#include "runtime/bundle/flush_denormals.h"
#include "runtime/bundle/halide_buffer_view.h"

namespace nee {

// Halide's default error handler aborts the process (e.g. "CUDA API not found" on a
// machine without a driver). Ours keeps the message so run() can throw it instead.
static thread_local std::string g_last_halide_error;

static void keep_halide_error(void*, const char* message) { g_last_halide_error = message ? message : ""; }

HalideDeviceApi HalideDeviceApi::of(const SharedLibrary& library) {
  HalideDeviceApi api;
  api.copy_to_host = reinterpret_cast<BufferFunction>(library.find("halide_copy_to_host"));
  api.device_free = reinterpret_cast<BufferFunction>(library.find("halide_device_free"));
  api.device_sync = reinterpret_cast<BufferFunction>(library.find("halide_device_sync"));
  api.device_malloc = reinterpret_cast<MallocFunction>(library.find("halide_device_malloc"));
  api.device_crop = reinterpret_cast<CropFunction>(library.find("halide_device_crop"));
  api.device_release_crop = reinterpret_cast<BufferFunction>(library.find("halide_device_release_crop"));
  if (void* f = library.find("halide_cuda_device_interface")) {
    open_cuda_driver();  // before the library's first call, so Halide finds the driver
    api.device_interface = reinterpret_cast<InterfaceFunction>(f);
  } else if (void* f = library.find("halide_opencl_device_interface")) {
    api.device_interface = reinterpret_cast<InterfaceFunction>(f);
  }
  return api;
}

HalideKernel::HalideKernel(const SharedLibrary& library, const std::string& symbol) : symbol_(symbol) {
  using SetErrorHandler = void* (*)(void (*)(void*, const char*));
  if (auto set_handler = reinterpret_cast<SetErrorHandler>(library.find("halide_set_error_handler"))) {
    set_handler(keep_halide_error);
  }
  argv_ = reinterpret_cast<ArgvFunction>(library.require(symbol + "_argv"));
  auto metadata = reinterpret_cast<MetadataFunction>(library.require(symbol + "_metadata"));
  metadata_ = metadata();
  device_api_ = HalideDeviceApi::of(library);
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
    const bool f32 = arg.type.code == halide_type_float && arg.type.bits == 32 && expected[i]->dtype == DType::f32;
    const bool u8 = arg.type.code == halide_type_uint && arg.type.bits == 8 && expected[i]->dtype == DType::u8;
    const bool i8 = arg.type.code == halide_type_int && arg.type.bits == 8 && expected[i]->dtype == DType::i8;
    if (!f32 && !u8 && !i8) {
      throw Error(fmt::format("kernel '{}' argument '{}' is not of the type of {}", symbol_, arg.name,
                              expected[i]->to_string()));
    }
  }
}

void HalideKernel::call(const std::vector<halide_buffer_t*>& buffers) const {
  std::vector<void*> args(buffers.begin(), buffers.end());
  g_last_halide_error.clear();
  const int status = [&] {
    const FlushDenormals flush;
    return argv_(args.data());
  }();
  if (status != 0) {
    std::string message = g_last_halide_error;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw Error(fmt::format("kernel '{}' failed (Halide error {}): {}", symbol_, status, message));
  }
}

void HalideKernel::run(const std::vector<const Tensor*>& inputs, Tensor& output) const {
  ResidentKernelCall call(*this, inputs, output);
  call();
  call.copy_output_to_host();
}

ResidentKernelCall::ResidentKernelCall(const HalideKernel& kernel, const std::vector<const Tensor*>& inputs,
                                       Tensor& output)
    : kernel_(kernel) {
  for (const Tensor* t : inputs) {
    views_.emplace_back(*t);
    views_.back().buffer.set_host_dirty(true);
    buffers_.push_back(&views_.back().buffer);
  }
  views_.emplace_back(output);
  buffers_.push_back(&views_.back().buffer);
}

ResidentKernelCall::~ResidentKernelCall() {
  const HalideDeviceApi& api = kernel_.device_api();
  if (!api.device_free) return;
  for (halide_buffer_t* b : buffers_) {
    if (b->device) api.device_free(nullptr, b);
  }
}

void ResidentKernelCall::operator()() {
  kernel_.call(buffers_);
  halide_buffer_t* out = buffers_.back();
  const HalideDeviceApi& api = kernel_.device_api();
  if (out->device && api.device_sync) {
    if (const int status = api.device_sync(nullptr, out)) {
      throw Error(fmt::format("kernel '{}': waiting for the device failed ({})", kernel_.symbol(), status));
    }
  }
}

void ResidentKernelCall::copy_output_to_host() {
  halide_buffer_t* out = buffers_.back();
  const HalideDeviceApi& api = kernel_.device_api();
  if (api.copy_to_host && out->device_dirty()) {
    if (const int status = api.copy_to_host(nullptr, out)) {
      throw Error(fmt::format("kernel '{}': copying the output to the host failed ({})", kernel_.symbol(), status));
    }
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
