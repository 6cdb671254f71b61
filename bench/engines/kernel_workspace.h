#pragma once
#include <memory>
#include <string>

#include "core/target.h"
#include "tuner/compile/builder.h"

namespace nee::bench {

// The scratch folder, host target and builder shared by the engines that compile Halide
// kernels. The folder is removed on destruction.
class KernelWorkspace {
 public:
  // `threads` is what every Halide kernel library is set to run with.
  explicit KernelWorkspace(int threads);
  ~KernelWorkspace();
  KernelWorkspace(const KernelWorkspace&) = delete;
  KernelWorkspace& operator=(const KernelWorkspace&) = delete;

  const Target& target() const { return target_; }
  int threads() const { return threads_; }
  Builder& builder() { return *builder_; }
  // A new, empty folder inside the workspace.
  std::string new_folder(const std::string& prefix);

 private:
  std::string dir_;
  Target target_;
  int threads_;
  int next_folder_ = 0;
  std::unique_ptr<Builder> builder_;
};

}  // namespace nee::bench
