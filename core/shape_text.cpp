#include "core/shape_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "core/integer_text.h"

namespace nee {

ShapeText::ShapeText(const std::string& family, const std::string& text, const std::vector<std::string>& names)
    : family_(family), text_(text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) parts.push_back(part);
  const std::optional<std::vector<int64_t>> shape = parse_integer_list(parts.empty() ? "" : parts[0]);
  if (!shape || shape->empty()) refuse("it does not start with a shape of integers joined by x (e.g. 8x128)");
  shape_ = *shape;
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    const std::string name = parts[i].substr(0, eq);
    if (eq == std::string::npos || std::find(names.begin(), names.end(), name) == names.end()) {
      refuse(fmt::format("'{}' is not one of {}=", parts[i], fmt::join(names, "=, ")));
    }
    if (!values_.emplace(name, parts[i].substr(eq + 1)).second) refuse(name + " is given twice");
  }
}

void ShapeText::refuse(const std::string& why) const {
  throw Error(fmt::format("bad {} shape '{}': {}", family_, text_, why));
}

int64_t ShapeText::integer(const std::string& name, int64_t fallback) const {
  if (!has(name)) return fallback;
  const std::optional<int64_t> v = parse_integer(values_.at(name));
  if (!v) refuse(fmt::format("{} '{}' is not an integer", name, values_.at(name)));
  return *v;
}

double ShapeText::number(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string& text = values_.at(name);
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
  }
  refuse(fmt::format("{} '{}' is not a number", name, text));
}

std::vector<int64_t> ShapeText::integers(const std::string& name, std::vector<int64_t> fallback, size_t count) const {
  if (!has(name)) return fallback;
  const std::optional<std::vector<int64_t>> v = parse_integer_list(values_.at(name));
  if (!v || v->empty()) refuse(fmt::format("{} '{}' is not a list of integers joined by x", name, values_.at(name)));
  if (count != 0 && v->size() != count) refuse(fmt::format("{} has {} values, not {}", name, v->size(), count));
  return *v;
}

std::string ShapeText::choice(const std::string& name, const std::string& fallback,
                              const std::vector<std::string>& choices) const {
  if (!has(name)) return fallback;
  const std::string& v = values_.at(name);
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    refuse(fmt::format("{} '{}' is not one of {}", name, v, fmt::join(choices, ", ")));
  }
  return v;
}

}  // namespace nee
