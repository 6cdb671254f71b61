#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "runtime/memory_plan.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A chain's index map as factors: the source's dims of extent above 1, split where a later
// view cuts one, each factor an id with its extent; the source's memory order of the
// factors, and per dim of the chain's current value the factors it spans, outer first.
class FactoredIndex {
 public:
  explicit FactoredIndex(const std::vector<int64_t>& shape) {
    for (int64_t extent : shape) {
      dims_.emplace_back();
      if (extent == 1) continue;
      dims_.back().push_back(add_factor(extent));
      source_order_.push_back(dims_.back().back());
    }
  }

  void transpose(const std::vector<int64_t>& perm) {
    std::vector<std::vector<int>> moved;
    for (int64_t d : perm) moved.push_back(dims_[static_cast<size_t>(d)]);
    dims_ = std::move(moved);
  }

  // The current value viewed as `shape`: false where a new dim does not cover whole
  // factors and cannot split the one it cuts.
  bool view(const std::vector<int64_t>& shape) {
    std::vector<int> flat;
    for (const std::vector<int>& dim : dims_) flat.insert(flat.end(), dim.begin(), dim.end());
    std::vector<std::vector<int>> viewed;
    size_t next = 0;
    for (int64_t extent : shape) {
      viewed.emplace_back();
      int64_t covered = 1;
      while (covered < extent) {
        if (next == flat.size() || extent % covered != 0) return false;
        const int f = flat[next];
        if (extent % (covered * extents_[f]) == 0) {
          viewed.back().push_back(f);
          covered *= extents_[f];
          ++next;
          continue;
        }
        const int64_t outer = extent / covered;
        if (extents_[f] % outer != 0) return false;
        const auto [a, b] = split(f, outer);
        viewed.back().push_back(a);
        flat[next] = b;
        covered *= outer;
      }
      if (covered != extent) return false;
    }
    if (next != flat.size()) return false;
    dims_ = std::move(viewed);
    return true;
  }

  // The whole map as one transpose: the source viewed as `source_shape` (factors adjacent
  // in both orders merged), read along `perm` for the output's order.
  void as_transpose(std::vector<int64_t>& source_shape, std::vector<int64_t>& perm) const {
    std::vector<int> out_order;
    for (const std::vector<int>& dim : dims_) out_order.insert(out_order.end(), dim.begin(), dim.end());
    std::vector<size_t> position(extents_.size());
    for (size_t i = 0; i < source_order_.size(); ++i) position[static_cast<size_t>(source_order_[i])] = i;
    // Runs of output factors that are consecutive in the source too become one dim.
    std::vector<std::pair<size_t, size_t>> runs;  // source positions [first, last]
    for (int f : out_order) {
      const size_t p = position[static_cast<size_t>(f)];
      if (!runs.empty() && runs.back().second + 1 == p) {
        runs.back().second = p;
      } else {
        runs.emplace_back(p, p);
      }
    }
    std::vector<size_t> by_source(runs.size());
    std::iota(by_source.begin(), by_source.end(), 0);
    std::sort(by_source.begin(), by_source.end(), [&](size_t a, size_t b) { return runs[a].first < runs[b].first; });
    source_shape.clear();
    perm.assign(runs.size(), 0);
    for (size_t j = 0; j < by_source.size(); ++j) {
      int64_t extent = 1;
      for (size_t p = runs[by_source[j]].first; p <= runs[by_source[j]].second; ++p) {
        extent *= extents_[static_cast<size_t>(source_order_[p])];
      }
      source_shape.push_back(extent);
      perm[by_source[j]] = static_cast<int64_t>(j);
    }
  }

 private:
  int add_factor(int64_t extent) {
    extents_.push_back(extent);
    return static_cast<int>(extents_.size()) - 1;
  }

  // Factor f as an outer factor of extent `outer` and an inner one, in the source's order
  // and in the dim that holds it.
  std::pair<int, int> split(int f, int64_t outer) {
    const int a = add_factor(outer), b = add_factor(extents_[static_cast<size_t>(f)] / outer);
    const auto replace = [&](std::vector<int>& factors) {
      const auto at = std::find(factors.begin(), factors.end(), f);
      if (at != factors.end()) factors.insert(factors.erase(at), {a, b});
    };
    replace(source_order_);
    for (std::vector<int>& dim : dims_) replace(dim);
    return {a, b};
  }

  std::vector<int64_t> extents_;
  std::vector<int> source_order_;
  std::vector<std::vector<int>> dims_;
};

bool is_view(const Node& node) {
  if (!output_is_view_of_input(node.op) || node.inputs.empty()) return false;
  return std::all_of(node.outputs.begin() + 1, node.outputs.end(), [](const std::string& o) { return o.empty(); });
}

bool chains(const Node& node) {
  return (node.op == "Transpose" && node.inputs.size() == 1 && node.outputs.size() == 1) || is_view(node);
}

std::vector<int64_t> transpose_perm(const Graph& graph, const Node& node) {
  const size_t rank = graph.type_of(node.inputs[0]).shape.size();
  std::vector<int64_t> reversed(rank);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return node.attrs.get_ints("perm", reversed);
}

// The node that alone reads `value`, as its first input, where it chains.
const Node* next_link(const Graph& graph, const std::string& value) {
  if (graph.is_output(value)) return nullptr;
  const std::vector<const Node*> readers = graph.consumers(value);
  if (readers.size() != 1 || !chains(*readers[0]) || readers[0]->inputs[0] != value) return nullptr;
  return readers[0];
}

}  // namespace

void compose_transposes(Graph& graph) {
  std::vector<std::string> erased, removed;
  std::vector<Node> added;
  for (const Node& head : graph.nodes()) {
    if (!chains(head) || std::find(erased.begin(), erased.end(), head.name) != erased.end()) continue;
    const Node* before = graph.producer(head.inputs[0]);
    if (before && chains(*before) && next_link(graph, head.inputs[0]) == &head) continue;  // not a chain's head
    std::vector<const Node*> chain = {&head};
    while (const Node* next = next_link(graph, chain.back()->outputs[0])) chain.push_back(next);
    const auto transposes = std::count_if(chain.begin(), chain.end(), [](const Node* n) { return !is_view(*n); });
    if (transposes < 2) continue;
    const std::string& source = head.inputs[0];
    FactoredIndex index(graph.type_of(source).shape);
    bool composes = true;
    for (const Node* n : chain) {
      if (is_view(*n)) {
        composes = index.view(graph.type_of(n->outputs[0]).shape);
      } else {
        index.transpose(transpose_perm(graph, *n));
      }
      if (!composes) break;
    }
    if (!composes) continue;
    std::vector<int64_t> source_shape, perm;
    index.as_transpose(source_shape, perm);
    const std::string result = chain.back()->outputs[0];
    for (const Node* n : chain) {
      erased.push_back(n->name);
      if (n != chain.back()) removed.push_back(n->outputs[0]);
    }
    // An identity perm leaves a view of the source alone.
    const bool copies = !std::is_sorted(perm.begin(), perm.end());
    std::string from = source;
    if (copies && graph.type_of(source).shape != source_shape) {
      added.push_back(reshape_view(graph, source, unique_value_name(graph, result + ".composed/source"), source_shape));
      from = added.back().outputs[0];
    }
    std::vector<int64_t> out_shape(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) out_shape[k] = source_shape[static_cast<size_t>(perm[k])];
    if (copies) {
      const std::string copied = unique_value_name(graph, result + ".composed/copied");
      graph.add_value(copied, TensorType{graph.type_of(source).dtype, out_shape});
      Node transpose = single_output_node("Transpose", {from}, copied);
      transpose.attrs.set("perm", perm);
      added.push_back(std::move(transpose));
      from = copied;
    }
    Node last = single_output_node(
        "Reshape", {from, add_shape_constant(graph, unique_value_name(graph, result + ".composed.shape"), graph.type_of(result).shape)}, result);
    last.name = unique_value_name(graph, result + ".composed");
    added.push_back(std::move(last));
  }
  if (erased.empty()) return;
  erase_named_nodes(graph, erased);
  for (const std::string& v : removed) graph.remove_value(v);
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
