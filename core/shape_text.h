#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nee {

// The `nee-tune --op NAME --shape TEXT` text of the families whose operand is one tensor
// with named options: "DxDx...xD[,name=value]...". Each getter refuses a malformed value
// with a nee::Error that quotes the family's text and names the option.
class ShapeText {
 public:
  // Splits `text`; refuses an empty or malformed shape, a name outside `names` and a name
  // given twice.
  ShapeText(const std::string& family, const std::string& text, const std::vector<std::string>& names);

  const std::vector<int64_t>& shape() const { return shape_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The value as written; empty when absent.
  std::string text(const std::string& name) const { return has(name) ? values_.at(name) : ""; }
  int64_t integer(const std::string& name, int64_t fallback) const;
  double number(const std::string& name, double fallback) const;
  // An "x"-joined list of integers of `count` values (any count when 0).
  std::vector<int64_t> integers(const std::string& name, std::vector<int64_t> fallback, size_t count = 0) const;
  // One of `choices`.
  std::string choice(const std::string& name, const std::string& fallback, const std::vector<std::string>& choices) const;
  // A nee::Error quoting the text, for checks the family makes itself.
  [[noreturn]] void refuse(const std::string& why) const;

 private:
  std::string family_, text_;
  std::vector<int64_t> shape_;
  std::map<std::string, std::string> values_;
};

}  // namespace nee
