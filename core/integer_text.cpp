#include "core/integer_text.h"

#include <sstream>
#include <stdexcept>

namespace nee {

std::optional<int64_t> parse_integer(const std::string& text) {
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size()) return std::nullopt;
    return static_cast<int64_t>(v);
  } catch (const std::logic_error&) {  // std::stoll's invalid_argument and out_of_range
    return std::nullopt;
  }
}

std::optional<std::vector<int64_t>> parse_integer_list(const std::string& text, char separator) {
  std::vector<int64_t> values;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, separator)) {
    const std::optional<int64_t> v = parse_integer(part);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

}  // namespace nee
