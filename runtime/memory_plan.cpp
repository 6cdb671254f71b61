#include "runtime/memory_plan.h"

#include <algorithm>
#include <set>
#include <vector>

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
  return plan;
}

}  // namespace nee
