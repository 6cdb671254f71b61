#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/graph_options.h"
#include "runtime/kernel_provider.h"
#include "runtime/memory_plan.h"
#include "runtime/tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

// A graph pass pipeline a Session runs in prepare(): optimize_graph (runtime/passes) for a
// graph as imported. A pointer, not a call in Session, so that what only executes graphs
// already optimized (libnee over deploy artifacts) links no pass.
using GraphOptimizer = void (*)(Graph& graph, const GraphOptions& options);

struct SessionOptions {
  SessionOptions() = default;
  explicit SessionOptions(GraphOptimizer graph_optimizer, MemoryCaps caps = {})
      : optimizer(graph_optimizer), memory_caps(caps) {}

  // Run in prepare(), with the first provider's graph options (a bundle's) or the
  // defaults; none to execute the graph as given (already optimized, or as imported).
  GraphOptimizer optimizer = nullptr;
  // What prepare() may allocate (check_memory_caps in runtime/memory_plan.h), checked
  // before the arena is.
  MemoryCaps memory_caps;
};

// Which provider and kernel runs a node.
struct Placement {
  std::string node, op, provider, kernel;
};

// Executes a graph. prepare() (optimization passes, kernel binding) is separate from
// run(), which only checks inputs and calls the bound kernels in order.
//
// Runs may overlap: run() is safe to call from several threads at once. Each run takes an
// arena of its own (one more is allocated when every arena is in use, and kept for later
// runs, as long as the memory caps' total allows another run; beyond, a run waits for an
// arena), and the kernels read the graph and their bound state only. A session whose
// kernels run on a device runs one run at a time: its values live in the device memory
// its kernels share.
class Session {
 public:
  // Providers are tried in order for each node; the reference provider is appended last.
  Session(Graph graph, std::vector<std::unique_ptr<KernelProvider>> providers,
          SessionOptions options = {});
  ~Session();

  // Optimizes the graph and binds every node; throws nee::Error naming a node that no
  // provider binds. run() calls it when it has not run yet (once, whichever thread runs
  // first).
  void prepare();

  // Every graph input must be given, with its declared dtype and shape; unknown names are
  // rejected. Returns the graph outputs by name. A graph output named in `into` is
  // written into that tensor, which must have the output's type (the caller's buffer:
  // the kernel that computes it writes there, or, where the output is a view or a
  // constant, its bytes are copied there); other names in `into` are ignored.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs,
                                    const std::map<std::string, Tensor>& into = {});

  const Graph& graph() const { return graph_; }
  std::vector<Placement> placements() const;
  // The last run to finish, per node: its kernel's time, and when it was called (for
  // traces on a shared timeline).
  std::vector<double> node_times_us() const;
  std::vector<std::chrono::steady_clock::time_point> node_starts() const;
  // The static plan of intermediate tensors (after prepare()).
  const MemoryPlan& memory_plan() const { return plan_; }
  // How many arenas runs have needed at once: 1 until runs overlap.
  size_t arenas() const;
  // The last run's host-device copies, when a provider's kernels run on a device (a GPU
  // bundle's); none for host-only sessions.
  std::optional<DeviceTraffic> device_traffic() const;
  // Whether each device kernel is waited for before the next node starts (after
  // prepare()). Profiles need it: a device node's time is otherwise its launch alone.
  // It slows whole runs by one host-device round trip per kernel.
  void wait_for_each_device_kernel(bool on);

 private:
  struct BoundNode;
  void check_inputs(const std::map<std::string, Tensor>& inputs) const;
  // Runs a host kernel in a session with device kernels: the values it reads come back
  // from the device first (a round trip), and what it writes is marked newer on the host.
  void run_on_host(const BoundNode& b, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out);

  // An arena (one allocation for every planned intermediate) not in use by a run, or a
  // new one; back to the free list when the lease ends.
  class ArenaLease;
  ArenaLease lease_arena();

  Graph graph_;
  std::vector<std::unique_ptr<KernelProvider>> providers_;
  SessionOptions options_;
  std::mutex prepare_mutex_;
  std::atomic<bool> prepared_{false};
  std::vector<BoundNode> bound_;
  MemoryPlan plan_;
  mutable std::mutex arenas_mutex_;
  std::condition_variable arena_returned_;
  std::vector<std::shared_ptr<uint8_t>> free_arenas_;
  size_t arenas_made_ = 0;
  size_t max_arenas_ = 1;  // runs the memory caps allow at once (check_memory_caps)
  mutable std::mutex last_run_mutex_;
  std::vector<double> node_times_us_;
  std::vector<std::chrono::steady_clock::time_point> node_starts_;
  DeviceValues* device_ = nullptr;  // the device kernels' shared memory (owned by their provider)
  std::mutex device_turn_;          // held by a device session's run
  DeviceTraffic traffic_;           // a device session's last run
};

}  // namespace nee
