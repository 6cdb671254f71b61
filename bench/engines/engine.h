#pragma once
#include <string>
#include <vector>

#include "core/workload.h"
#include "runtime/tensor.h"

namespace nee::bench {

// One way of computing a workload that the bench times against the others: a NEE
// kernel, a Halide autoscheduler's kernel, a BLAS library.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Builds or loads what running `workload` needs; throws nee::Error when it cannot
  // (unsupported workload, failed build).
  virtual void prepare(const Workload& workload) = 0;
  // Where the prepared code comes from, for the report ("tuned: record 12", ...).
  virtual std::string provenance() const { return ""; }
  // Computes the prepared workload; `output` has the workload's output type.
  virtual void run(const std::vector<const Tensor*>& inputs, Tensor& output) = 0;
};

}  // namespace nee::bench
