#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nee {

// An Einsum equation read against its operands' shapes. Every letter and every dim the
// ellipsis stands for is a label; a label repeated within one operand takes its diagonal,
// and a label missing from the output is summed over.
struct EinsumEquation {
  std::vector<std::vector<int>> operand_labels;  // per operand, per dim
  std::vector<int> output_labels;                // per output dim
  std::vector<int64_t> label_sizes;              // per label; ellipsis dims broadcast (1 or one size)
};

// Labels missing from the output are summed over, ellipsis dims included (numpy's rule).
// Throws nee::Error naming the problem: a character that is not a letter, a label whose
// dims differ, an operand count or rank that the equation does not match, an output label
// that no operand has. Without "->" the output is the labels used once, in alphabetical
// order, after the ellipsis dims (numpy's implicit mode).
EinsumEquation parse_einsum(const std::string& equation, const std::vector<std::vector<int64_t>>& shapes);

}  // namespace nee
