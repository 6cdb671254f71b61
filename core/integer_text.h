#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nee {

// The command line's integers and shape lists ("1024x1024x1024"), shared by the
// --shape parsers of every operator family; each caller checks signs and counts and
// words its own error.

// The whole of `text` as a decimal integer; nullopt when any of it is not.
std::optional<int64_t> parse_integer(const std::string& text);

// `text` split at `separator`, each part an integer ("4x8x16" -> {4, 8, 16}); nullopt
// when a part is not one. An empty text is an empty list.
std::optional<std::vector<int64_t>> parse_integer_list(const std::string& text, char separator = 'x');

}  // namespace nee
