#pragma once
#include <string>
#include <vector>

namespace nee::bench {

// A named list of MatMul shapes ("MxKxN").
struct Suite {
  std::string name;
  std::vector<std::string> shapes;
  std::string meaning;
};

// square: 256, 512 and 1024 cubed. bert: the BERT-base encoder's projections at
// sequence length 128 (QKV/output 768x768, feed-forward 768x3072). all: both.
const std::vector<Suite>& suites();
// Throws nee::Error listing the known names.
const Suite& find_suite(const std::string& name);
std::vector<std::string> suite_names();

}  // namespace nee::bench
