#include "importer/input_shape_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <utility>

#include "core/error.h"

namespace nee {
namespace {

std::vector<int64_t> parse_dims(const std::string& dims_text, const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (true) {
    const size_t end = dims_text.find('x', start);
    const std::string part = dims_text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // strtoll alone would accept leading spaces and signs: digits only.
    const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const long long value = digits ? std::strtoll(part.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE || value <= 0) {
      throw Error(fmt::format("bad input shape '{}': dim '{}' is not a positive integer (expected NAME=DxDx...xD, "
                              "e.g. input=8x3x224x224)", text, part));
    }
    dims.push_back(value);
    if (end == std::string::npos) return dims;
    start = end + 1;
  }
}

}  // namespace

std::string input_shape_text(const std::string& name, const std::vector<int64_t>& shape) {
  return fmt::format("{}={}", name, fmt::join(shape, "x"));
}

namespace {

std::pair<std::string, std::vector<int64_t>> parse_one(const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    throw Error(fmt::format("bad input shape '{}': expected NAME=DxDx...xD, e.g. input=8x3x224x224", text));
  }
  return {text.substr(0, eq), parse_dims(text.substr(eq + 1), text)};
}

}  // namespace

InputShapes parse_input_shapes(const std::vector<std::string>& texts) {
  InputShapes shapes;
  for (const std::string& text : texts) {
    auto [name, dims] = parse_one(text);
    if (shapes.count(name)) throw Error(fmt::format("input shape of '{}' given twice", name));
    shapes[name] = std::move(dims);
  }
  return shapes;
}

std::vector<InputShapes> parse_input_shape_sets(const std::vector<std::string>& texts) {
  std::vector<InputShapes> sets(1);
  std::set<std::string> named_in_set;
  for (const std::string& text : texts) {
    auto [name, dims] = parse_one(text);
    if (named_in_set.count(name)) {
      sets.push_back(sets.back());
      named_in_set.clear();
    }
    named_in_set.insert(name);
    sets.back()[name] = std::move(dims);
  }
  return sets;
}

}  // namespace nee
