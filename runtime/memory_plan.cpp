#include "runtime/memory_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

#include "core/error.h"

namespace nee {

bool output_is_view_of_input(const std::string& op) {
  static const std::set<std::string> views = {"Reshape", "Flatten", "Identity", "Squeeze", "Unsqueeze", "Dropout"};
  return views.count(op) != 0;
}

namespace {

struct Buffer {
  std::string name;
  size_t bytes = 0;
  size_t first = 0, last = 0;  // node indices: producer, last reader
  bool planned = true;
};

// Copy-free concatenation. A Concat whose dims before its axis are all 1 (a batch-1
// channel concatenation, NCHW or blocked) keeps each input as one contiguous run of its
// output, so an input can be produced in place: its bytes are that run, and the Concat's
// kernel finds it there and copies nothing (the reference Concat skips an input already
// in place). Concats whose inputs begin with another's inputs form a chain (DenseNet's
// dense blocks concatenate the same features again with one more each time): every one
// of them is then a prefix of the longest, so it is a view of that one's bytes, and an
// input that no Concat outside the chain reads is made in place once for all of them;
// other readers read it there (GhostNet's ghost modules concatenate a conv's output that
// the next conv reads too: 24 copies, 1.0 of its 7.3 ms per run).
// Returns each value placed inside another with that host and the byte offset there.
// `root` maps values to the buffer holding their bytes; a value that is a view, a graph
// input or output, or a Concat's output read as an input stays a copy, as does one off
// the plan's alignment.
std::unordered_map<std::string, std::pair<std::string, size_t>> made_in_place(
    const Graph& graph, const std::unordered_map<std::string, std::string>& root,
    const std::unordered_map<std::string, Buffer>& buffers, size_t alignment) {
  const auto own_buffer = [&](const std::string& value) {
    const auto r = root.find(value);
    const auto b = buffers.find(value);
    return r != root.end() && r->second == value && b != buffers.end() && b->second.planned;
  };
  std::unordered_map<std::string, const Node*> concats;  // batch-1 Concats by output
  for (const Node& node : graph.nodes()) {
    if (node.op != "Concat" || node.outputs.empty() || !own_buffer(node.outputs[0])) continue;
    const std::vector<int64_t>& shape = graph.type_of(node.outputs[0]).shape;
    const int64_t axis = node.attrs.get_int("axis", -1);
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) continue;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
    if (outer == 1) concats[node.outputs[0]] = &node;
  }
  // Each Concat's parent: the one with the fewest more inputs whose inputs begin with its own.
  std::unordered_map<std::string, std::string> parent;
  for (const auto& [y, a] : concats) {
    const Node* best = nullptr;
    for (const auto& [other, b] : concats) {
      if (b == a || b->inputs.size() <= a->inputs.size() || b->attrs.get_int("axis") != a->attrs.get_int("axis") ||
          !std::equal(a->inputs.begin(), a->inputs.end(), b->inputs.begin())) {
        continue;
      }
      if (!best || b->inputs.size() < best->inputs.size()) best = b;
    }
    if (best) parent[y] = best->outputs[0];
  }
  const auto chain_root = [&](std::string y) {
    for (auto it = parent.find(y); it != parent.end(); it = parent.find(y)) y = it->second;
    return y;
  };
  std::unordered_map<std::string, std::pair<std::string, size_t>> inside;
  for (const auto& [y, node] : concats) {
    if (parent.count(y)) inside[y] = {chain_root(y), 0};
  }
  for (const auto& [y, node] : concats) {
    if (parent.count(y)) continue;
    size_t offset = 0;
    for (const std::string& x : node->inputs) {
      const TensorType& type = graph.type_of(x);
      const size_t bytes = static_cast<size_t>(type.elements()) * dtype_size(type.dtype);
      bool placeable = own_buffer(x) && !concats.count(x) && !inside.count(x) && offset % alignment == 0;
      for (const Node* reader : graph.consumers(x)) {
        if (reader->op != "Concat") continue;  // it reads x wherever x lives
        placeable = placeable && concats.count(reader->outputs[0]) && chain_root(reader->outputs[0]) == y &&
                    std::count(reader->inputs.begin(), reader->inputs.end(), x) == 1;
      }
      if (placeable) inside[x] = {y, offset};
      offset += bytes;
    }
  }
  return inside;
}

}  // namespace

MemoryPlan plan_memory(const Graph& graph, size_t alignment) {
  const auto& nodes = graph.nodes();
  std::unordered_map<std::string, std::string> root;  // value -> the buffer holding its bytes
  std::unordered_map<std::string, Buffer> buffers;
  std::vector<std::string> order;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const std::string& out = node.outputs[o];
      if (out.empty()) continue;
      if (o == 0 && output_is_view_of_input(node.op) && !node.inputs.empty()) {
        auto it = root.find(node.inputs[0]);
        // A view of a graph input or a constant holds no planned bytes.
        root[out] = it == root.end() ? std::string() : it->second;
        continue;
      }
      const TensorType& type = graph.type_of(out);
      if (type.dtype == DType::string) {
        // Its elements are constructed std::string objects, which arena bytes cannot hold
        // (runtime/tensor.h): it is allocated per run, as a graph output is.
        root[out] = std::string();
        continue;
      }
      root[out] = out;
      buffers[out] = Buffer{out, static_cast<size_t>(type.elements()) * dtype_size(type.dtype), i, i, true};
      order.push_back(out);
    }
    for (const std::string& in : node.inputs) {
      auto it = root.find(in);
      if (it != root.end() && !it->second.empty()) buffers[it->second].last = i;
    }
  }
  for (const std::string& out : graph.outputs()) {
    auto it = root.find(out);
    if (it != root.end() && !it->second.empty()) buffers[it->second].planned = false;
  }
  // A value made in place lives in its host's buffer, which is then live from the first
  // such value's producer to the last one's last reader.
  const auto inside = made_in_place(graph, root, buffers, alignment);
  for (const auto& [x, host] : inside) {
    Buffer& concat = buffers[host.first];
    concat.first = std::min(concat.first, buffers[x].first);
    concat.last = std::max(concat.last, buffers[x].last);
    buffers[x].planned = false;
  }

  // Greedy by size: the largest tensors are placed first, each at the lowest offset
  // that no placed tensor with an overlapping lifetime occupies.
  std::vector<Buffer*> by_size;
  for (const std::string& name : order) {
    if (buffers[name].planned) by_size.push_back(&buffers[name]);
  }
  std::stable_sort(by_size.begin(), by_size.end(), [](const Buffer* a, const Buffer* b) { return a->bytes > b->bytes; });
  const auto padded = [alignment](size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; };
  MemoryPlan plan;
  std::vector<std::pair<const Buffer*, size_t>> placed;
  for (Buffer* b : by_size) {
    const size_t size = padded(b->bytes);
    plan.unshared_bytes += size;
    std::vector<std::pair<size_t, size_t>> taken;  // [offset, end) of live neighbours
    for (const auto& [other, offset] : placed) {
      if (other->first <= b->last && b->first <= other->last) taken.emplace_back(offset, offset + padded(other->bytes));
    }
    std::sort(taken.begin(), taken.end());
    size_t offset = 0;
    for (const auto& [start, end] : taken) {
      if (offset + size <= start) break;
      offset = std::max(offset, end);
    }
    placed.emplace_back(b, offset);
    plan.offsets[b->name] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
  }
  for (const auto& [x, host] : inside) plan.offsets[x] = plan.offsets.at(host.first) + host.second;
  return plan;
}

namespace {

int64_t bytes_of(const TensorType& type) { return type.elements() * static_cast<int64_t>(dtype_size(type.dtype)); }

// The largest of some values, named with the node that makes it, for the errors.
struct Largest {
  std::string value, node, op;
  TensorType type;
  int64_t bytes = -1;

  void consider(const std::string& name, const TensorType& t, const Node* producer) {
    if (bytes_of(t) <= bytes) return;
    value = name;
    type = t;
    bytes = bytes_of(t);
    node = producer ? producer->name : std::string();
    op = producer ? producer->op : std::string();
  }
  std::string describe() const {
    if (bytes < 0) return "no tensor";
    const std::string made_by = node.empty() ? "" : fmt::format(" of node '{}' ({})", node, op);
    return fmt::format("'{}'{}, {} ({})", value, made_by, type.to_string(), format_bytes(bytes));
  }
};

}  // namespace

size_t check_memory_caps(const Graph& graph, const MemoryPlan& plan, const MemoryCaps& caps) {
  int64_t weights = 0, inputs = 0, per_run = 0;
  Largest largest_constant, largest_run;
  for (const std::string& name : graph.value_names()) {
    const Tensor* value = graph.constant(name);
    if (!value) continue;
    weights += bytes_of(value->type());
    largest_constant.consider(name, value->type(), nullptr);
  }
  for (const std::string& name : graph.inputs()) inputs += bytes_of(graph.type_of(name));
  for (const Node& node : graph.nodes()) {
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      const TensorType& type = graph.type_of(out);
      checked_elements(type, fmt::format("output '{}' of node '{}' ({})", out, node.name, node.op), caps.tensor_bytes);
      largest_run.consider(out, type, &node);
      // Session::run gives every output the arena does not hold a tensor of its own.
      if (!plan.offsets.count(out)) per_run += bytes_of(type);
    }
  }
  const int64_t arena = static_cast<int64_t>(plan.arena_bytes), run = arena + per_run;
  if (weights > caps.weights_bytes) {
    throw Error(fmt::format("the graph's constants take {}, over the {} cap on the model's weights; the largest is {}",
                            format_bytes(weights), format_bytes(caps.weights_bytes), largest_constant.describe()));
  }
  if (run > caps.plan_bytes) {
    throw Error(fmt::format("a run takes {} ({} in the memory plan's arena, {} of tensors allocated per run), over "
                            "the {} cap on one run's memory; the largest tensor is {}",
                            format_bytes(run), format_bytes(arena), format_bytes(per_run),
                            format_bytes(caps.plan_bytes), largest_run.describe()));
  }
  if (weights + inputs + run > caps.total_bytes) {
    throw Error(fmt::format("the model takes {} ({} of constants, {} of inputs, {} per run), over the {} cap on its "
                            "memory; the largest tensor a run makes is {}, the largest constant {}",
                            format_bytes(weights + inputs + run), format_bytes(weights), format_bytes(inputs),
                            format_bytes(run), format_bytes(caps.total_bytes), largest_run.describe(),
                            largest_constant.describe()));
  }
  const int64_t each = inputs + run;
  if (each == 0) return std::numeric_limits<size_t>::max();
  return 1 + static_cast<size_t>((caps.total_bytes - weights - inputs - run) / each);
}

}  // namespace nee
