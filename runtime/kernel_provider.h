#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "runtime/device_values.h"
#include "runtime/graph.h"
#include "runtime/graph_options.h"
#include "runtime/tensor.h"

namespace nee {

// A kernel bound to one node of a prepared graph. Output tensors are allocated by the
// session with the node's inferred shapes before run() is called.
class NodeKernel {
 public:
  virtual ~NodeKernel() = default;
  virtual void run(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs) = 0;
  virtual std::string name() const = 0;  // kernel or symbol name, for reports
  // Whether run() writes every element of every output. The session zeroes the planned
  // output bytes of kernels that may not (reference kernels accumulate into theirs).
  virtual bool writes_every_output_element() const { return false; }
  // A device kernel (a GPU bundle's) returns the device memory it shares with the other
  // kernels of its provider; the session then calls run_on_device() instead of run().
  virtual DeviceValues* device_values() const { return nullptr; }
  // Runs on the device copies of the named values, uploading inputs whose host bytes are
  // newer; the output stays on the device. `inputs` and `output` are the host tensors
  // (their shapes, and the bytes uploads come from). Returns the bytes uploaded.
  virtual size_t run_on_device(const std::vector<std::string>& input_names, const std::vector<const Tensor*>& inputs,
                               const std::string& output_name, Tensor& output) {
    throw Error("kernel '" + name() + "' runs on the host, not on a device");
  }
};

// An execution provider: binds the nodes it can run. The session asks providers in
// order (tuned bundle first, reference CPU last) and uses the first that binds.
class KernelProvider {
 public:
  virtual ~KernelProvider() = default;
  virtual std::string name() const = 0;  // "bundle", "reference"
  // Returns null when this provider has no kernel for the node.
  virtual std::unique_ptr<NodeKernel> bind(const Graph& graph, const Node& node) = 0;
  // The graph rewrites its kernels' workloads were taken with, if it has kernels for
  // particular workloads; the session prepares the graph with the first provider's.
  virtual std::optional<GraphOptions> graph_options() const { return std::nullopt; }
};

}  // namespace nee
