#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "runtime/tensor.h"

namespace nee {

// A node's attributes, typed as in ONNX (int, float, string, ints, floats, tensor, strings).
// Getters with a fallback return it when the attribute is absent; the others throw
// nee::Error naming the attribute. A present attribute of another type is always an error.
class Attributes {
 public:
  using Value = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                             std::vector<float>, Tensor, std::vector<std::string>>;

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, Value value) { values_[name] = std::move(value); }
  void erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, Value>& all() const { return values_; }

  int64_t get_int(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name) const;
  float get_float(const std::string& name, float fallback) const;
  const std::string& get_string(const std::string& name) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  const std::vector<int64_t>& get_ints(const std::string& name) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback) const;
  const std::vector<float>& get_floats(const std::string& name) const;
  const Tensor& get_tensor(const std::string& name) const;
  std::vector<std::string> get_strings(const std::string& name, const std::vector<std::string>& fallback) const;

  std::string to_string() const;  // "alpha=1 trans_b=1", sorted by name

 private:
  template <typename T> const T& get(const std::string& name, const char* type_name) const;
  std::map<std::string, Value> values_;
};

}  // namespace nee
