#pragma once
#include <string>
#include <vector>

#include "bench/executed_flops.h"
#include "core/workload.h"
#include "runtime/tensor.h"

namespace nee::bench {

// One way of computing a workload that the bench times against the others: a NEE
// kernel, a Halide autoscheduler's kernel, a BLAS or DNN library.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Builds or loads what running `workload` needs; throws nee::Error when it cannot
  // (unsupported workload, failed build).
  virtual void prepare(const Workload& workload) = 0;
  // Where the prepared code comes from, for the report ("tuned: record 12", ...).
  virtual std::string provenance() const { return ""; }
  // The arithmetic one run() of the prepared `workload` executes: the family's count,
  // unless the engine computes it another way (NEE's Winograd convs).
  virtual ExecutedWork executed_work(const Workload& workload) const { return {workload.flops(), "direct"}; }
  // What the engine's library says ran in the first run() after prepare() (oneDNN's
  // verbose line names its kernel); empty when it says nothing.
  virtual std::string implementation() const { return ""; }
  // Called once, untimed, with the inputs every following run() gets: an engine that
  // computes in a layout of its own converts them here.
  virtual void bind_inputs(const std::vector<const Tensor*>& inputs) {}
  // Computes the prepared workload; `output` has the workload's output type. This is
  // what is timed.
  virtual void run(const std::vector<const Tensor*>& inputs, Tensor& output) = 0;
  // Untimed, after run(): brings the result into `output` in the workload's plain
  // layout, for an engine whose run() leaves it in a layout of its own.
  virtual void finish_output(Tensor& output) {}
};

}  // namespace nee::bench
