#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Float to integer truncates toward zero. The spec leaves values outside the target's
// range undefined; here they saturate and NaN becomes 0, so the result is never C++
// undefined behavior. Anything to bool is x != 0; integer narrowing wraps.
template <typename To, typename From>
To convert(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From{0};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(x)) return To{0};
    const double t = std::trunc(static_cast<double>(x));
    if (t <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(t);
  } else {
    return static_cast<To>(x);
  }
}

// ---- Numbers as text ----

// numpy's str of a float (what onnx's Cast tests expect), from its shortest round-trip
// digits in std::to_chars' scientific form ("-1.25e-05"): positional for zero and
// magnitudes in [1e-4, 1e16) ("0.000125", "1000000000000000.0"), scientific beyond
// ("1e+16", "1.5e-07", as numpy writes them too).
std::string float_text(double value, const std::string& scientific) {
  const double magnitude = std::fabs(value);
  if (magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16)) return scientific;
  const bool negative = scientific[0] == '-';
  const size_t e = scientific.find('e');
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (scientific[i] != '.') digits += scientific[i];
  }
  const int exponent = std::stoi(scientific.substr(e + 1));
  std::string text = negative ? "-" : "";
  if (exponent < 0) return text + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  const auto whole = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= whole) return text + digits + std::string(whole - digits.size(), '0') + ".0";
  return text + digits.substr(0, whole) + "." + digits.substr(whole);
}

// The spec reserves "NaN", "INF" and "-INF" for these (numpy would write nan, inf, -inf);
// they read back as the same values.
std::optional<std::string> special_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-INF" : "INF";
  return std::nullopt;
}

template <typename... Args>
std::string to_chars_text(Args... args) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, args...);
  return std::string(buffer, result.ptr);
}

// bool as numpy writes it ("True", "False"), integers in decimal, f32 and f64 by float_text.
template <typename T>
std::string text_of(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return to_chars_text(x);
  } else {
    if (auto special = special_text(x)) return *special;
    return float_text(x, to_chars_text(x, std::chars_format::scientific));
  }
}

// ---- Text as numbers ----

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The text without surrounding whitespace or a leading '+' (the spec's "+INF"), which
// std::from_chars reads neither of; Python's float() allows both.
std::string_view number_text(const std::string& s) {
  size_t begin = 0, end = s.size();
  while (begin < end && is_ascii_space(s[begin])) ++begin;
  while (end > begin && is_ascii_space(s[end - 1])) --end;
  if (end - begin > 1 && s[begin] == '+' && s[begin + 1] != '+' && s[begin + 1] != '-') ++begin;
  return std::string_view(s).substr(begin, end - begin);
}

// Decimal or scientific text, or INF, INFINITY, NaN in any case with an optional sign
// (std::from_chars' rule, which covers the spec's reserved spellings). A magnitude
// beyond T is read wider first, so it becomes infinity or zero as numpy's float32() of
// Python's float() does.
template <typename T>
std::optional<T> parse_float(std::string_view text) {
  const char* end = text.data() + text.size();
  T value{};
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::invalid_argument || stop != end) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    long double wide{};
    if (std::from_chars(text.data(), end, wide).ec != std::errc()) return std::nullopt;
    return static_cast<T>(wide);
  }
  return value;
}

// Integer text exactly (all 64 bits); other numbers as a float, then converted as Cast
// converts floats (truncated toward zero, saturated): the spec leaves "2.718" to an
// integer undefined.
template <typename T>
std::optional<T> parse_integer(std::string_view text) {
  const char* end = text.data() + text.size();
  T value{};
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc() && stop == end) return value;
  if (const std::optional<double> x = parse_float<double>(text)) return convert<T>(*x);
  return std::nullopt;
}

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  return text.size() == lower.size() && std::equal(text.begin(), text.end(), lower.begin(), [](char a, char b) {
           return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
         });
}

// "True" and "False" in any case (what bool casts to), else a number, true unless 0.
std::optional<bool> parse_bool(std::string_view text) {
  if (equals_ignoring_case(text, "true")) return true;
  if (equals_ignoring_case(text, "false")) return false;
  if (const std::optional<double> x = parse_float<double>(text)) return *x != 0;
  return std::nullopt;
}

template <typename T>
std::optional<T> parse_as(std::string_view text) {
  if constexpr (std::is_same_v<T, bool>) {
    return parse_bool(text);
  } else if constexpr (std::is_floating_point_v<T>) {
    return parse_float<T>(text);
  } else {
    return parse_integer<T>(text);
  }
}

// f16 rounds once from the double the text reads as; bf16 keeps the upper half of the
// f32 it reads as, as NEE's f32 to bf16 Cast does.
std::optional<uint16_t> parse_half(std::string_view text, DType half) {
  if (half == DType::f16) {
    const std::optional<double> x = parse_float<double>(text);
    return x ? std::optional<uint16_t>(f64_to_f16(*x)) : std::nullopt;
  }
  const std::optional<float> x = parse_float<float>(text);
  return x ? std::optional<uint16_t>(f32_to_bf16(*x)) : std::nullopt;
}

[[noreturn]] void not_a_number(const std::string& text, int64_t index, DType to) {
  throw Error(fmt::format("Cast: element {} of the input (\"{}\") is not a number, so it has no {} value", index, text,
                          to_string(to)));
}

// f16 and bf16 as float_text writes floats, with the fewest digits that read back (by
// parse_half) as the same bits: to_chars has no 16-bit float form.
std::string half_text(uint16_t bits, DType half) {
  const double value = half == DType::f16 ? f16_to_f32(bits) : bf16_to_f32(bits);
  if (auto special = special_text(value)) return *special;
  // 16 digits after the point (17 significant) reproduce any double, so any half.
  for (int precision = 0;; ++precision) {
    const std::string scientific = to_chars_text(value, std::chars_format::scientific, precision);
    if (precision == 16 || parse_half(scientific, half) == bits) return float_text(value, scientific);
  }
}

// Cast to STRING: every element as text (text_of, half_text); strings are copied.
ReferenceFn make_cast_to_text(DType from) {
  return [from](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    std::string* y = out[0]->data_as<std::string>();
    const int64_t n = out[0]->elements();
    if (from == DType::string) {
      std::copy(in[0]->data_as<std::string>(), in[0]->data_as<std::string>() + n, y);
    } else if (from == DType::f16 || from == DType::bf16) {
      const uint16_t* x = in[0]->data_as<uint16_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = half_text(x[i], from);
    } else {
      visit_dtype(from, [&](auto tag) {
        const auto* x = in[0]->data_as<decltype(tag)>();
        for (int64_t i = 0; i < n; ++i) y[i] = text_of(x[i]);
      });
    }
  };
}

// Cast from STRING: every element read as a number of the target dtype; text that is
// no number (which the spec leaves undefined) is an error naming the element.
ReferenceFn make_cast_from_text(DType to) {
  return [to](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const std::string* x = in[0]->data_as<std::string>();
    const int64_t n = out[0]->elements();
    if (to == DType::f16 || to == DType::bf16) {
      uint16_t* y = out[0]->data_as<uint16_t>();
      for (int64_t i = 0; i < n; ++i) {
        const std::optional<uint16_t> value = parse_half(number_text(x[i]), to);
        if (!value) not_a_number(x[i], i, to);
        y[i] = *value;
      }
      return;
    }
    visit_dtype(to, [&](auto tag) {
      using T = decltype(tag);
      T* y = out[0]->data_as<T>();
      for (int64_t i = 0; i < n; ++i) {
        const std::optional<T> value = parse_as<T>(number_text(x[i]));
        if (!value) not_a_number(x[i], i, to);
        y[i] = *value;
      }
    });
  };
}

}  // namespace

// Cast and CastLike: the output's dtype is the target. f16 and bf16 convert through f32
// (f64 to f16 rounds once, directly), every other pair of numbers directly; strings
// convert to and from text (make_cast_to_text, make_cast_from_text).
ReferenceFn make_reference_cast(const Graph& graph, const Node& node) {
  const DType from = graph.type_of(node.inputs[0]).dtype, to = graph.type_of(node.outputs[0]).dtype;
  if (to == DType::string) return make_cast_to_text(from);
  if (from == DType::string) return make_cast_from_text(to);
  const bool half_from = from == DType::f16 || from == DType::bf16, half_to = to == DType::f16 || to == DType::bf16;
  if (half_from || half_to) {
    return [from, to](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const int64_t n = out[0]->elements();
      std::vector<float> wide(static_cast<size_t>(n));
      if (from == DType::f16 || from == DType::bf16) {
        const uint16_t* x = in[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) wide[i] = from == DType::f16 ? f16_to_f32(x[i]) : bf16_to_f32(x[i]);
      } else if (from == DType::f64 && to == DType::f16) {
        const double* x = in[0]->data_as<double>();
        uint16_t* y = out[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = f64_to_f16(x[i]);
        return;
      } else {
        visit_dtype(from, [&](auto tag) {
          const auto* x = in[0]->data_as<decltype(tag)>();
          for (int64_t i = 0; i < n; ++i) wide[i] = convert<float>(x[i]);
        });
      }
      if (to == DType::f16 || to == DType::bf16) {
        uint16_t* y = out[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = to == DType::f16 ? f32_to_f16(wide[i]) : f32_to_bf16(wide[i]);
      } else {
        visit_dtype(to, [&](auto tag) {
          auto* y = out[0]->data_as<decltype(tag)>();
          for (int64_t i = 0; i < n; ++i) y[i] = convert<decltype(tag)>(wide[i]);
        });
      }
    };
  }
  return visit_dtype(from, [to](auto from_tag) -> ReferenceFn {
    using From = decltype(from_tag);
    return visit_dtype(to, [](auto to_tag) -> ReferenceFn {
      using To = decltype(to_tag);
      return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
        const From* x = in[0]->data_as<From>();
        To* y = out[0]->data_as<To>();
        for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = convert<To>(x[i]);
      };
    });
  });
}

// BitCast: the input's bytes, unchanged, as the output's dtype of the same width.
ReferenceFn make_reference_bit_cast(const Graph&, const Node&) {
  return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    if (in[0]->bytes() != 0) std::memcpy(out[0]->data(), in[0]->data(), in[0]->bytes());
  };
}

}  // namespace nee
