#pragma once
#include <map>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// The two steps every fusing pass takes. A pass marks the nodes it fused away while it
// walks the graph (indices stay valid), then erases them all at once.

// Puts `fused` where `consumer` was (after every input of both), gives it the consumer's
// outputs, marks `producer` fused away and drops the value between them.
void fuse_into_consumer(Graph& graph, std::vector<bool>& fused_away, size_t producer, size_t consumer, Node fused);

// Puts `fused` in the place of the last of `members` (after every input of the chain they
// form), marks the others fused away and drops the values between them.
void fuse_chain(Graph& graph, std::vector<bool>& fused_away, const std::vector<const Node*>& members, Node fused);

// Erases the marked nodes, keeping the others in order.
void erase_fused(Graph& graph, const std::vector<bool>& fused_away);

// Puts the nodes of each entry of `replacements` (node index -> nodes, none to erase it)
// in that node's place, keeping the others in order.
void replace_nodes(Graph& graph, std::map<size_t, std::vector<Node>>& replacements);

}  // namespace nee
