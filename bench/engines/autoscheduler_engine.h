#pragma once
#include <memory>

#include "bench/engines/engine.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/loaded_kernel.h"

namespace nee::bench {

// The workload's Halide algorithm scheduled by one of Halide's own autoschedulers
// ("Adams2019" or "Mullapudi2016"): the baseline a tuned NEE kernel must beat. The
// compile runs in a forked child, as Halide's compiler may abort.
class AutoschedulerEngine : public Engine {
 public:
  AutoschedulerEngine(std::shared_ptr<KernelWorkspace> workspace, std::string autoscheduler);
  std::string name() const override;  // the autoscheduler's name in lower case
  void prepare(const Workload& workload) override;
  std::string provenance() const override { return "Halide " + autoscheduler_ + " autoscheduler"; }
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override { kernel_->run(inputs, output); }

 private:
  std::shared_ptr<KernelWorkspace> workspace_;
  std::string autoscheduler_;
  std::unique_ptr<LoadedKernel> kernel_;
};

}  // namespace nee::bench
