#include "runtime/passes/transpose_chains.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "runtime/memory_plan.h"

namespace nee {

FactoredIndex::FactoredIndex(const std::vector<int64_t>& shape) {
  for (int64_t extent : shape) {
    dims_.emplace_back();
    if (extent == 1) continue;
    dims_.back().push_back(add_factor(extent));
    source_order_.push_back(dims_.back().back());
  }
}

void FactoredIndex::transpose(const std::vector<int64_t>& perm) {
  std::vector<std::vector<int>> moved;
  for (int64_t d : perm) moved.push_back(dims_[static_cast<size_t>(d)]);
  dims_ = std::move(moved);
}

bool FactoredIndex::view(const std::vector<int64_t>& shape) {
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
      const int64_t size = extents_[static_cast<size_t>(f)];
      if (extent % (covered * size) == 0) {
        viewed.back().push_back(f);
        covered *= size;
        ++next;
        continue;
      }
      const int64_t outer = extent / covered;
      if (size % outer != 0) return false;
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

void FactoredIndex::as_transpose(std::vector<int64_t>& source_shape, std::vector<int64_t>& perm) const {
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

int FactoredIndex::add_factor(int64_t extent) {
  extents_.push_back(extent);
  return static_cast<int>(extents_.size()) - 1;
}

// Factor f as an outer factor of extent `outer` and an inner one, in the source's order and
// in the dim that holds it.
std::pair<int, int> FactoredIndex::split(int f, int64_t outer) {
  const int a = add_factor(outer), b = add_factor(extents_[static_cast<size_t>(f)] / outer);
  const auto replace = [&](std::vector<int>& factors) {
    const auto at = std::find(factors.begin(), factors.end(), f);
    if (at != factors.end()) factors.insert(factors.erase(at), {a, b});
  };
  replace(source_order_);
  for (std::vector<int>& dim : dims_) replace(dim);
  return {a, b};
}

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

std::vector<const Node*> chain_from(const Graph& graph, const Node& head) {
  std::vector<const Node*> chain = {&head};
  for (;;) {
    const std::string& value = chain.back()->outputs[0];
    if (graph.is_output(value)) break;
    const std::vector<const Node*> readers = graph.consumers(value);
    if (readers.size() != 1 || !chains(*readers[0]) || readers[0]->inputs[0] != value) break;
    chain.push_back(readers[0]);
  }
  return chain;
}

bool follow(const Graph& graph, const std::vector<const Node*>& chain, FactoredIndex& index) {
  for (const Node* n : chain) {
    if (!is_view(*n)) {
      index.transpose(transpose_perm(graph, *n));
    } else if (!index.view(graph.type_of(n->outputs[0]).shape)) {
      return false;
    }
  }
  return true;
}

}  // namespace nee
