#include "bench/suites.h"

#include "core/error.h"

namespace nee::bench {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"square", {"256x256x256", "512x512x512", "1024x1024x1024"}, "square MatMul, 256 to 1024 cubed"},
      {"bert", {"128x768x768", "128x768x3072"}, "BERT-base projections at sequence length 128"},
      {"all",
       {"256x256x256", "512x512x512", "1024x1024x1024", "128x768x768", "128x768x3072"},
       "square and bert"},
  };
  return all;
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const Suite& s : suites()) names.push_back(s.name);
  return names;
}

const Suite& find_suite(const std::string& name) {
  for (const Suite& s : suites()) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const std::string& n : suite_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown suite '" + name + "' (known: " + known + ")");
}

}  // namespace nee::bench
