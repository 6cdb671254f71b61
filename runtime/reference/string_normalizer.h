#pragma once
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/tensor.h"

namespace nee {

// StringNormalizer's attributes (opset 10).
struct StringNormalization {
  enum class CaseChange { none, lower, upper };
  std::vector<std::string> stopwords;
  bool case_sensitive = false;  // is_case_sensitive: how stopwords are matched
  CaseChange case_change = CaseChange::none;
};

// Reads stopwords, is_case_sensitive (0 or 1) and case_change_action (LOWER, UPPER or
// NONE); nee::Error names any other value. `locale` is not read: case changes follow
// Unicode's simple (one code point to one) mappings, which en_US, the spec's default,
// uses too; so UPPER leaves German eszett as it is, as the onnx tests note.
StringNormalization string_normalization(const Attributes& attrs);

// What StringNormalizer outputs for the strings of `x`, in row-major order: those that
// are not stopwords (compared in lower case unless case_sensitive), case changed; one
// empty string when every one is a stopword, as the spec says. The importer calls it
// for the output's length, the kernel for its values. Text is UTF-8: changing or
// ignoring case throws nee::Error for text that is not.
std::vector<std::string> normalize_strings(const Tensor& x, const StringNormalization& how);

}  // namespace nee
