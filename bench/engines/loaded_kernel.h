#pragma once
#include <memory>
#include <string>

#include "core/workload.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/bundle/shared_library.h"

namespace nee::bench {

// A compiled Halide kernel library loaded into this process, its signature checked
// against the workload and its private thread pool set to `threads`.
class LoadedKernel {
 public:
  LoadedKernel(const std::string& library_path, const std::string& symbol, const Workload& workload, int threads);
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) const { kernel_->run(inputs, output); }
  const HalideKernel& kernel() const { return *kernel_; }

 private:
  // Declared first so it is destroyed last: the kernel's code lives in the library.
  std::unique_ptr<SharedLibrary> library_;
  std::unique_ptr<HalideKernel> kernel_;
};

}  // namespace nee::bench
