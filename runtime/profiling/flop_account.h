#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/profiling/run_profile.h"

namespace nee {

// Where a model's floating-point work runs: one run's FLOPs per provider, and the nodes
// left to the reference kernels, largest first, so a user sees what the bundle misses.
struct FlopAccount {
  struct ReferenceNode {
    std::string node, op;
    double flops = 0;
  };
  double total = 0;                           // FLOPs of one run
  std::map<std::string, double> by_provider;  // "bundle", "reference"
  std::vector<ReferenceNode> reference_nodes;

  // Fraction of the total that `provider` ran; 0 when the model has no FLOPs.
  double share(const std::string& provider) const;
};

FlopAccount account_flops(const RunProfile& profile);

// A "FLOPs per run" section: the total, each provider's share, and the `top` largest
// reference nodes (with a line counting the rest).
std::string format_flop_account(const FlopAccount& account, size_t top);

}  // namespace nee
