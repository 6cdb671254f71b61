#include "runtime/profiling/flop_account.h"

#include <fmt/format.h>

#include <algorithm>

namespace nee {

double FlopAccount::share(const std::string& provider) const {
  auto it = by_provider.find(provider);
  return it == by_provider.end() || total <= 0 ? 0.0 : it->second / total;
}

FlopAccount account_flops(const RunProfile& profile) {
  FlopAccount account;
  for (const NodeProfile& n : profile.nodes) {
    account.total += n.flops;
    account.by_provider[n.provider] += n.flops;
    if (n.provider == "reference") account.reference_nodes.push_back({n.name, n.op, n.flops});
  }
  std::stable_sort(account.reference_nodes.begin(), account.reference_nodes.end(),
                   [](const auto& a, const auto& b) { return a.flops > b.flops; });
  return account;
}

std::string format_flop_account(const FlopAccount& account, size_t top) {
  std::string text = fmt::format("FLOPs per run: {:.4g} GFLOP", account.total * 1e-9);
  for (const auto& [provider, flops] : account.by_provider) {
    text += fmt::format(", {:.1f}% on {} kernels", 100.0 * account.share(provider), provider);
  }
  text += "\n";
  const auto& nodes = account.reference_nodes;
  if (nodes.empty()) return text;
  text += fmt::format("nodes on the reference kernels ({}), largest first:\n", nodes.size());
  text += fmt::format("  {:<32} {:<20} {:>12}\n", "node", "op", "MFLOP");
  const size_t shown = std::min(top, nodes.size());
  for (size_t i = 0; i < shown; ++i) {
    text += fmt::format("  {:<32} {:<20} {:>12.3f}\n", nodes[i].node, nodes[i].op, nodes[i].flops * 1e-6);
  }
  if (shown < nodes.size()) {
    double rest = 0;
    for (size_t i = shown; i < nodes.size(); ++i) rest += nodes[i].flops;
    text += fmt::format("  ... {} more nodes, {:.3f} MFLOP in all\n", nodes.size() - shown, rest * 1e-6);
  }
  return text;
}

}  // namespace nee
