#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/memory_plan.h"
#include "runtime/tensor.h"

namespace nee {

// Host-device copies of one run, and the host nodes that forced a round trip.
struct DeviceTraffic {
  size_t bytes_to_device = 0;  // graph inputs, constants on their first run, host results read by device kernels
  size_t bytes_to_host = 0;    // graph outputs, and device results read by host kernels
  // Host kernels that read a value whose latest contents were on the device, in run order.
  std::vector<std::string> round_trip_nodes;
  // Device memory the session's values hold after the run (DeviceValues::resident_bytes).
  size_t resident_bytes = 0;
};

// The values a provider's device kernels (a GPU bundle's) keep in device memory from node
// to node, by value name. The session tells it where each value was last written; a
// value's device copy outlives the run, so constants are uploaded once per session.
class DeviceValues {
 public:
  virtual ~DeviceValues() = default;
  // `name`'s host bytes were written (a graph input, a host kernel's output): a device
  // kernel that reads it must upload it first.
  virtual void host_written(const std::string& name) = 0;
  // Whether the device holds contents of `name` that its host bytes lack.
  virtual bool device_newer(const std::string& name) const = 0;
  // Copies `name`'s device contents into `host` when the device's are newer; returns the
  // bytes copied (0: the host bytes were current).
  virtual size_t to_host(const std::string& name, const Tensor& host) = 0;
  // `view` is `of` under another shape (Reshape, Flatten): it shares `of`'s device contents,
  // which must be newer than the host's.
  virtual void alias(const std::string& view, const std::string& of, const Tensor& host) = 0;
  // The session's memory plan, before the first run: a planned value's device copy lives
  // at its planned offset in one device allocation of `plan.arena_bytes`, as its host
  // bytes do in the host arena, so values whose lifetimes do not overlap share device
  // memory too.
  virtual void plan(const MemoryPlan& plan) = 0;
  // Device bytes the values hold now: the arena, once allocated, and the allocations of
  // the values outside the plan (constants, graph inputs and outputs).
  virtual size_t resident_bytes() const = 0;
  // Whether each device kernel is waited for before the next node starts. Off, a node's
  // span is its launch only (kernels queue asynchronously); on, it is the kernel's run,
  // which per-node profiles need.
  virtual void wait_for_each_kernel(bool on) = 0;
};

}  // namespace nee
