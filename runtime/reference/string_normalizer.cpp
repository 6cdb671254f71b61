// StringNormalizer (opset 10): removes stopwords from a list of strings and changes the
// case of the rest.
#include "runtime/reference/string_normalizer.h"

#include <fmt/format.h>

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <set>

#include "core/error.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

[[noreturn]] void not_utf8(const std::string& text) {
  throw Error(
      fmt::format("StringNormalizer: \"{}\" is not UTF-8 text, so its case cannot be changed or ignored", text));
}

// The code points of UTF-8 text, which must be well formed: no overlong forms, no
// surrogates, nothing past U+10FFFF.
std::u32string code_points(const std::string& text) {
  static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // per length: below it, a shorter form
  std::u32string points;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80          ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xE  ? 3
                          : (lead >> 3) == 0x1E ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) not_utf8(text);
    char32_t c = length == 1 ? lead : lead & (0x7Fu >> length);
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) not_utf8(text);
      c = (c << 6) | (next & 0x3Fu);
    }
    if (c < kSmallest[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) not_utf8(text);
    points += c;
    i += length;
  }
  return points;
}

std::string utf8(const std::u32string& points) {
  std::string text;
  for (char32_t c : points) {
    if (c < 0x80) {
      text += static_cast<char>(c);
    } else if (c < 0x800) {
      text += static_cast<char>(0xC0 | (c >> 6));
      text += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      text += static_cast<char>(0xE0 | (c >> 12));
      text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      text += static_cast<char>(0xF0 | (c >> 18));
      text += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return text;
}

// glibc's C.UTF-8 character tables, which hold Unicode's simple case mappings; null
// where the system has no such locale.
locale_t unicode_ctype() {
  static const locale_t ctype = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return ctype;
}

// ASCII maps by itself (the same in every locale), so only other letters need the tables.
char32_t with_case(char32_t c, bool upper) {
  if (c < 0x80) {
    if (upper && c >= 'a' && c <= 'z') return c - 'a' + 'A';
    if (!upper && c >= 'A' && c <= 'Z') return c - 'A' + 'a';
    return c;
  }
  const locale_t unicode = unicode_ctype();
  if (!unicode) {
    throw Error(fmt::format("StringNormalizer: changing the case of U+{:04X} needs the C.UTF-8 locale's tables, "
                            "which this system lacks", static_cast<uint32_t>(c)));
  }
  return static_cast<char32_t>(upper ? towupper_l(c, unicode) : towlower_l(c, unicode));
}

std::string with_case(const std::string& text, bool upper) {
  std::u32string points = code_points(text);
  for (char32_t& c : points) c = with_case(c, upper);
  return utf8(points);
}

}  // namespace

StringNormalization string_normalization(const Attributes& attrs) {
  StringNormalization how;
  how.stopwords = attrs.get_strings("stopwords", {});
  const int64_t case_sensitive = attrs.get_int("is_case_sensitive", 0);
  if (case_sensitive != 0 && case_sensitive != 1) {
    throw Error(fmt::format("is_case_sensitive is {}; it must be 0 or 1", case_sensitive));
  }
  how.case_sensitive = case_sensitive == 1;
  const std::string action = attrs.get_string("case_change_action", "NONE");
  if (action == "LOWER") {
    how.case_change = StringNormalization::CaseChange::lower;
  } else if (action == "UPPER") {
    how.case_change = StringNormalization::CaseChange::upper;
  } else if (action != "NONE") {
    throw Error(fmt::format("case_change_action is '{}'; it must be LOWER, UPPER or NONE", action));
  }
  return how;
}

std::vector<std::string> normalize_strings(const Tensor& x, const StringNormalization& how) {
  const auto key = [&how](const std::string& s) { return how.case_sensitive ? s : with_case(s, false); };
  std::set<std::string> stopwords;
  for (const std::string& word : how.stopwords) stopwords.insert(key(word));
  std::vector<std::string> kept;
  const std::string* strings = x.data_as<std::string>();
  for (int64_t i = 0; i < x.elements(); ++i) {
    if (stopwords.count(key(strings[i]))) continue;
    switch (how.case_change) {
      case StringNormalization::CaseChange::none: kept.push_back(strings[i]); break;
      case StringNormalization::CaseChange::lower: kept.push_back(with_case(strings[i], false)); break;
      case StringNormalization::CaseChange::upper: kept.push_back(with_case(strings[i], true)); break;
    }
  }
  if (kept.empty()) kept.emplace_back();
  return kept;
}

// The output was sized at import from X's values (a staged run specializes on them);
// X with another count of survivors is an error rather than a write past the output.
ReferenceFn make_reference_string_normalizer(const Graph& graph, const Node& node) {
  const StringNormalization how = string_normalization(node.attrs);
  return [how](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const std::vector<std::string> kept = normalize_strings(*in[0], how);
    if (static_cast<int64_t>(kept.size()) != out[0]->elements()) {
      throw Error(fmt::format("StringNormalizer outputs {} strings here, but its output was sized for {} at import",
                              kept.size(), out[0]->elements()));
    }
    std::copy(kept.begin(), kept.end(), out[0]->data_as<std::string>());
  };
}

}  // namespace nee
