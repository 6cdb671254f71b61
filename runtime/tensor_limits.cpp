#include "runtime/tensor_limits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace nee {

MemoryCaps memory_caps_within(int64_t total) {
  MemoryCaps caps;
  caps.tensor_bytes = std::min(caps.tensor_bytes, total);
  caps.weights_bytes = total;
  caps.plan_bytes = total;
  caps.total_bytes = total;
  return caps;
}

std::string format_bytes(int64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  int unit = 0;
  while (unit + 1 < 6 && bytes >= int64_t{1024} << (10 * (unit + 1))) ++unit;
  const int64_t scale = int64_t{1} << (10 * (unit + 1));
  if (bytes % scale == 0) return fmt::format("{} {}", bytes / scale, units[unit]);
  return fmt::format("{:.2f} {}", static_cast<double>(bytes) / static_cast<double>(scale), units[unit]);
}

int64_t parse_byte_size(const std::string& text) {
  const auto refuse = [&text](const std::string& why) {
    return Error(fmt::format("'{}' is not a byte size ({}); write digits with an optional K, M, G or T "
                             "suffix (powers of 1024), e.g. 512M or 4G",
                             text, why));
  };
  size_t end = 0;
  int64_t value = 0;
  for (; end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])); ++end) {
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text[end] - '0', &value)) {
      throw refuse("too large");
    }
  }
  if (end == 0) throw refuse("no digits");
  std::string suffix = text.substr(end);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::toupper(c); });
  static const std::string letters = "KMGT";
  int shift = 0;
  if (!suffix.empty() && letters.find(suffix[0]) != std::string::npos) {
    shift = 10 * (1 + static_cast<int>(letters.find(suffix[0])));
    suffix.erase(0, 1);
    if (suffix == "IB") suffix = "B";
  }
  if (!suffix.empty() && suffix != "B") throw refuse(fmt::format("unknown suffix '{}'", text.substr(end)));
  if (value > (INT64_MAX >> shift)) throw refuse("too large");
  if (value == 0) throw refuse("zero bytes");
  return value << shift;
}

int64_t checked_elements(const TensorType& type, const std::string& what, int64_t max_bytes) {
  int64_t elements = 1;
  for (int64_t d : type.shape) {
    if (d < 0) throw Error(fmt::format("{} has a negative dimension: [{}]", what, fmt::join(type.shape, ",")));
    if (__builtin_mul_overflow(elements, d, &elements)) {
      throw Error(fmt::format("{} has dims [{}] whose product overflows 64 bits", what,
                              fmt::join(type.shape, ",")));
    }
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(dtype_size(type.dtype)), &bytes)) {
    throw Error(fmt::format("{} of type {} would take {} elements, whose bytes overflow 64 bits", what,
                            type.to_string(), elements));
  }
  if (bytes > max_bytes) {
    throw Error(fmt::format("{} of type {} would take {} ({} elements), over the {} limit per tensor", what,
                            type.to_string(), format_bytes(bytes), elements, format_bytes(max_bytes)));
  }
  return elements;
}

int64_t checked_bytes(const TensorType& type, const std::string& what, int64_t max_bytes) {
  return checked_elements(type, what, max_bytes) * static_cast<int64_t>(dtype_size(type.dtype));
}

void ByteBudget::reserve(int64_t bytes, const std::string& what) {
  int64_t total = 0;
  if (__builtin_add_overflow(used_, bytes, &total) || total > cap_) {
    throw Error(fmt::format("{} takes {}, and with the {} taken before it the total passes the {} {}", what,
                            format_bytes(bytes), format_bytes(used_), format_bytes(cap_), cap_name_));
  }
  used_ = total;
}

}  // namespace nee
