#pragma once
#include <deque>
#include <string>
#include <vector>

#include <HalideRuntime.h>

#include "core/workload.h"
#include "runtime/bundle/halide_buffer_view.h"
#include "runtime/bundle/kernel_thread_pool.h"
#include "runtime/bundle/shared_library.h"
#include "runtime/tensor.h"

namespace nee {

// The Halide runtime's device calls that a kernel library exports (null where it lacks
// them). On a CPU target's library no buffer ever gets a device copy for them to act on.
struct HalideDeviceApi {
  using BufferFunction = int (*)(void*, halide_buffer_t*);
  using MallocFunction = int (*)(void*, halide_buffer_t*, const halide_device_interface_t*);
  using CropFunction = int (*)(void*, const halide_buffer_t*, halide_buffer_t*);
  using InterfaceFunction = const halide_device_interface_t* (*)();
  BufferFunction copy_to_host = nullptr;
  BufferFunction device_free = nullptr;
  BufferFunction device_sync = nullptr;  // waits for the device's queued work on a buffer
  MallocFunction device_malloc = nullptr;
  CropFunction device_crop = nullptr;           // a view of part of another buffer's device memory
  BufferFunction device_release_crop = nullptr;
  InterfaceFunction device_interface = nullptr;  // the library's GPU API: CUDA's or OpenCL's
  static HalideDeviceApi of(const SharedLibrary& library);
};

// Calls one ahead-of-time compiled Halide kernel through its `<symbol>_argv` entry point.
// The argument list is read from the kernel's own `<symbol>_metadata()` and checked
// against the tensors a workload expects, so a kernel built for other shapes or types is
// refused at load, not discovered by a crash. Needs only Halide's runtime header.
class HalideKernel {
 public:
  HalideKernel(const SharedLibrary& library, const std::string& symbol);

  // Throws nee::Error naming the first argument whose kind, type or rank differ.
  void check_signature(const std::vector<TensorType>& inputs, const TensorType& output) const;

  // Runs on host tensors. For GPU targets Halide copies inputs to the device; the
  // output is copied back and every device allocation released before returning
  // (ResidentKernelCall made for one call).
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) const;
  // Calls the kernel on buffers as they are (inputs, then the output): for GPU targets
  // Halide uploads the inputs marked host-dirty and leaves the output on the device.
  // Throws nee::Error with Halide's message when the call fails.
  void call(const std::vector<halide_buffer_t*>& buffers) const;
  const HalideDeviceApi& device_api() const { return device_api_; }

  const std::string& symbol() const { return symbol_; }

 private:
  using ArgvFunction = int (*)(void**);
  using MetadataFunction = const halide_filter_metadata_t* (*)();

  std::string symbol_;
  ArgvFunction argv_ = nullptr;
  const halide_filter_metadata_t* metadata_ = nullptr;
  HalideDeviceApi device_api_;
};

// Calls one kernel again and again on the same tensors, as a model run meets a GPU
// kernel: its operands stay on the device (the runtime's session keeps every value
// there). The first call uploads the inputs; later calls reuse them, and each call waits
// for the device (halide_device_sync) before it returns. Every device allocation is
// freed on destruction. On a CPU target it is a plain call on the host tensors.
class ResidentKernelCall {
 public:
  ResidentKernelCall(const HalideKernel& kernel, const std::vector<const Tensor*>& inputs, Tensor& output);
  ~ResidentKernelCall();
  ResidentKernelCall(const ResidentKernelCall&) = delete;
  ResidentKernelCall& operator=(const ResidentKernelCall&) = delete;

  void operator()();
  // Brings a device output to the host tensor (no-op when the host holds it already).
  void copy_output_to_host();

 private:
  const HalideKernel& kernel_;
  std::deque<HalideBufferView> views_;  // grows without moving the views Halide points into
  std::vector<halide_buffer_t*> buffers_;
};

// Makes the process's kernel pool (kernel_thread_pool.h) run every parallel loop of a
// kernel library, sized to `threads`, and returns that size. 0 means one thread per CPU
// this process may run on (its affinity mask), not Halide's own default, which counts
// every CPU online and so oversubscribes a process confined by taskset or a cpuset.
// Throws nee::Error for a negative count or spin time.
int attach_kernel_pool(const SharedLibrary& library, int threads, int spin_us = KernelPoolSettings{}.spin_us);

}  // namespace nee
