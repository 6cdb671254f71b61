#include "runtime/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "runtime/reference/reference_provider.h"

namespace nee {

namespace {

// `from`'s elements into `to`, of the same type.
void copy_into(const Tensor& from, Tensor& to) {
  if (from.dtype() != DType::string) {
    std::memcpy(to.data(), from.data(), from.bytes());
    return;
  }
  std::copy_n(from.data_as<std::string>(), from.elements(), to.data_as<std::string>());
}

}  // namespace

struct Session::BoundNode {
  Placement placement;
  std::unique_ptr<NodeKernel> kernel;
  std::vector<std::string> inputs, outputs;  // empty input name: omitted, passed as null
  std::vector<std::string> released_after;   // intermediates whose last reader this is
  bool output_is_view = false;               // output 0 shares input 0's bytes (Reshape, Flatten)
};

class Session::ArenaLease {
 public:
  ArenaLease(Session& session, std::shared_ptr<uint8_t> arena) : session_(session), arena_(std::move(arena)) {}
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  ~ArenaLease() {
    {
      std::lock_guard<std::mutex> lock(session_.arenas_mutex_);
      session_.free_arenas_.push_back(std::move(arena_));
    }
    session_.arena_returned_.notify_one();
  }
  const std::shared_ptr<uint8_t>& get() const { return arena_; }

 private:
  Session& session_;
  std::shared_ptr<uint8_t> arena_;
};

Session::ArenaLease Session::lease_arena() {
  {
    std::unique_lock<std::mutex> lock(arenas_mutex_);
    arena_returned_.wait(lock, [this] { return !free_arenas_.empty() || arenas_made_ < max_arenas_; });
    if (!free_arenas_.empty()) {
      std::shared_ptr<uint8_t> arena = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return ArenaLease(*this, std::move(arena));
    }
    ++arenas_made_;  // counted before the allocation, so that no other run makes one past the cap
  }
  void* arena = std::aligned_alloc(64, std::max<size_t>(plan_.arena_bytes, 64));
  if (!arena) {
    {
      std::lock_guard<std::mutex> lock(arenas_mutex_);
      --arenas_made_;
    }
    arena_returned_.notify_one();
    throw Error(fmt::format("cannot allocate the {}-byte tensor arena", plan_.arena_bytes));
  }
  return ArenaLease(*this, std::shared_ptr<uint8_t>(static_cast<uint8_t*>(arena), [](uint8_t* p) { std::free(p); }));
}

Session::Session(Graph graph, std::vector<std::unique_ptr<KernelProvider>> providers,
                 SessionOptions options)
    : graph_(std::move(graph)), providers_(std::move(providers)), options_(options) {
  providers_.push_back(make_reference_provider());
}

Session::~Session() = default;

void Session::prepare() {
  if (prepared_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(prepare_mutex_);
  if (prepared_.load(std::memory_order_relaxed)) return;
  if (options_.optimizer) {
    GraphOptions graph_options;
    for (const auto& provider : providers_) {
      if (const std::optional<GraphOptions> wanted = provider->graph_options()) {
        graph_options = *wanted;
        break;
      }
    }
    options_.optimizer(graph_, graph_options);
  }
  graph_.sort_topologically();

  std::unordered_map<std::string, size_t> last_reader;
  const auto& nodes = graph_.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) last_reader[in] = i;
  }
  bound_.clear();
  device_ = nullptr;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    BoundNode b;
    for (auto& provider : providers_) {
      b.kernel = provider->bind(graph_, node);
      if (b.kernel) {
        b.placement = Placement{node.name, node.op, provider->name(), b.kernel->name()};
        break;
      }
    }
    if (!b.kernel) {
      throw Error(fmt::format("no kernel provider can run node '{}' ({} on {})", node.name, node.op,
                              node.inputs.empty() ? std::string("no inputs")
                                                  : graph_.type_of(node.inputs[0]).to_string()));
    }
    b.inputs = node.inputs;
    b.outputs = node.outputs;
    b.output_is_view = output_is_view_of_input(node.op) && !node.inputs.empty() && !node.inputs[0].empty();
    if (DeviceValues* device = b.kernel->device_values()) {
      if (device_ && device_ != device) {
        throw Error(fmt::format("node '{}' runs on a second device memory; one session drives one device", node.name));
      }
      device_ = device;
    }
    for (const std::string& in : node.inputs) {
      if (!in.empty() && last_reader[in] == i && graph_.producer(in) && !graph_.is_output(in)) {
        b.released_after.push_back(in);
      }
    }
    bound_.push_back(std::move(b));
  }
  node_times_us_.assign(bound_.size(), 0.0);
  node_starts_.assign(bound_.size(), {});
  // A device session's arena is mirrored on the device, where an OpenCL sub-buffer's
  // origin must be a multiple of the device's base address alignment: 4096 bits on
  // NVIDIA's OpenCL, the largest of the common ones.
  plan_ = plan_memory(graph_, device_ ? 512 : 64);
  max_arenas_ = check_memory_caps(graph_, plan_, options_.memory_caps);
  if (device_) device_->plan(plan_);
  lease_arena();  // the first run's, allocated now: a run that cannot have one fails here
  prepared_.store(true, std::memory_order_release);
}

size_t Session::arenas() const {
  std::lock_guard<std::mutex> lock(arenas_mutex_);
  return arenas_made_;
}

std::vector<double> Session::node_times_us() const {
  std::lock_guard<std::mutex> lock(last_run_mutex_);
  return node_times_us_;
}

std::vector<std::chrono::steady_clock::time_point> Session::node_starts() const {
  std::lock_guard<std::mutex> lock(last_run_mutex_);
  return node_starts_;
}

void Session::check_inputs(const std::map<std::string, Tensor>& inputs) const {
  for (const std::string& name : graph_.inputs()) {
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      throw Error(fmt::format("input '{}' ({}) is missing", name, graph_.type_of(name).to_string()));
    }
    const TensorType& expected = graph_.type_of(name);
    const Tensor& given = it->second;
    if (given.empty_storage() && expected.elements() > 0) {
      throw Error(fmt::format("input '{}' is an empty tensor, expected {}", name, expected.to_string()));
    }
    if (given.dtype() != expected.dtype) {
      throw Error(fmt::format("input '{}' has dtype {}, expected {}", name, to_string(given.dtype()),
                              expected.to_string()));
    }
    if (given.shape() != expected.shape) {
      throw Error(fmt::format("input '{}' has shape {}, expected {}", name, given.type().to_string(),
                              expected.to_string()));
    }
  }
  for (const auto& entry : inputs) {
    const auto& declared = graph_.inputs();
    if (std::find(declared.begin(), declared.end(), entry.first) == declared.end()) {
      throw Error(fmt::format("'{}' is not an input of the graph", entry.first));
    }
  }
}

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& inputs,
                                           const std::map<std::string, Tensor>& into) {
  prepare();
  check_inputs(inputs);
  std::map<std::string, Tensor> destinations;  // the graph outputs of `into`
  for (const std::string& name : graph_.outputs()) {
    auto given = into.find(name);
    if (given == into.end()) continue;
    if (!(given->second.type() == graph_.type_of(name)) || given->second.empty_storage()) {
      throw Error(fmt::format("output '{}' is {}; the tensor given for it is {}", name,
                              graph_.type_of(name).to_string(), given->second.type().to_string()));
    }
    destinations.emplace(name, given->second);
  }
  std::unordered_map<std::string, Tensor> values(inputs.begin(), inputs.end());
  auto lookup = [&](const std::string& name) -> const Tensor* {
    auto it = values.find(name);
    if (it != values.end()) return &it->second;
    return graph_.constant(name);
  };

  std::unique_lock<std::mutex> device_turn;
  if (device_) {
    device_turn = std::unique_lock<std::mutex>(device_turn_);
    traffic_ = {};
    for (const std::string& name : graph_.inputs()) device_->host_written(name);
  }
  const ArenaLease arena = lease_arena();
  std::vector<double> times(bound_.size());
  std::vector<std::chrono::steady_clock::time_point> starts(bound_.size());
  for (size_t i = 0; i < bound_.size(); ++i) {
    BoundNode& b = bound_[i];
    std::vector<const Tensor*> in;
    for (const std::string& name : b.inputs) in.push_back(name.empty() ? nullptr : lookup(name));
    std::vector<Tensor*> out;
    for (const std::string& name : b.outputs) {
      if (name.empty()) {
        out.push_back(nullptr);
        continue;
      }
      Tensor& slot = values[name];
      auto planned = plan_.offsets.find(name);
      if (b.output_is_view && name == b.outputs[0]) {
        // The kernel points the output at its input's bytes. Allocating and zeroing a
        // tensor for it first took 160 of BERT's 4400 us per run at batch 8 on an H200,
        // per view of an 8x128x768 tensor (nee-run --profile: the gap before the node).
        out.push_back(&slot);
        continue;
      }
      if (auto given = destinations.find(name); given != destinations.end()) {
        slot = given->second;
        if (!b.kernel->writes_every_output_element()) std::memset(slot.data(), 0, slot.bytes());
      } else if (planned == plan_.offsets.end()) {
        slot = Tensor(graph_.type_of(name));
      } else {
        // Reference kernels may accumulate into their output, so their planned bytes
        // start at zero too. Skipping it for kernels that write every element saved 1.3
        // of MobileNetV2's 8.4 ms per run (nee-run --profile: the gap between the whole
        // run and its nodes).
        slot = Tensor(graph_.type_of(name), arena.get(), planned->second);
        if (!b.kernel->writes_every_output_element()) std::memset(slot.data(), 0, slot.bytes());
      }
      out.push_back(&slot);
    }
    const auto start = std::chrono::steady_clock::now();
    if (b.kernel->device_values()) {
      traffic_.bytes_to_device += b.kernel->run_on_device(b.inputs, in, b.outputs.at(0), *out.at(0));
    } else if (device_) {
      run_on_host(b, in, out);
    } else {
      b.kernel->run(in, out);
    }
    const auto stop = std::chrono::steady_clock::now();
    starts[i] = start;
    times[i] = std::chrono::duration<double, std::micro>(stop - start).count();
    for (const std::string& name : b.released_after) values.erase(name);
  }

  std::map<std::string, Tensor> outputs;
  for (const std::string& name : graph_.outputs()) {
    const Tensor* t = lookup(name);
    if (!t) throw Error(fmt::format("graph output '{}' was not computed", name));
    if (device_) traffic_.bytes_to_host += device_->to_host(name, *t);
    auto given = destinations.find(name);
    if (given != destinations.end() && given->second.data() != t->data()) copy_into(*t, given->second);
    outputs[name] = given != destinations.end() ? given->second : *t;
  }
  if (device_) traffic_.resident_bytes = device_->resident_bytes();
  std::lock_guard<std::mutex> lock(last_run_mutex_);
  node_times_us_ = std::move(times);
  node_starts_ = std::move(starts);
  return outputs;
}

void Session::run_on_host(const BoundNode& b, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
  // A view of a value on the device is a view there too: nothing needs copying.
  const bool device_view = b.output_is_view && device_->device_newer(b.inputs[0]);
  bool round_trip = false;
  for (size_t k = device_view ? 1 : 0; k < in.size(); ++k) {
    if (!in[k]) continue;
    const size_t bytes = device_->to_host(b.inputs[k], *in[k]);
    traffic_.bytes_to_host += bytes;
    round_trip = round_trip || bytes > 0;
  }
  if (round_trip) traffic_.round_trip_nodes.push_back(b.placement.node);
  b.kernel->run(in, out);
  for (size_t k = 0; k < out.size(); ++k) {
    if (!out[k]) continue;
    if (k == 0 && device_view) {
      device_->alias(b.outputs[0], b.inputs[0], *out[0]);
    } else {
      device_->host_written(b.outputs[k]);
    }
  }
}

void Session::wait_for_each_device_kernel(bool on) {
  if (device_) device_->wait_for_each_kernel(on);
}

std::optional<DeviceTraffic> Session::device_traffic() const {
  if (!device_) return std::nullopt;
  return traffic_;
}

std::vector<Placement> Session::placements() const {
  std::vector<Placement> all;
  for (const BoundNode& b : bound_) all.push_back(b.placement);
  return all;
}

}  // namespace nee
