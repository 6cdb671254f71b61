#include "runtime/attributes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace nee {

template <typename T>
const T& Attributes::get(const std::string& name, const char* type_name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(fmt::format("missing attribute '{}'", name));
  const T* value = std::get_if<T>(&it->second);
  if (!value) throw Error(fmt::format("attribute '{}' is not of type {}", name, type_name));
  return *value;
}

int64_t Attributes::get_int(const std::string& name) const { return get<int64_t>(name, "int"); }

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

float Attributes::get_float(const std::string& name) const { return get<float>(name, "float"); }

float Attributes::get_float(const std::string& name, float fallback) const {
  return has(name) ? get_float(name) : fallback;
}

const std::string& Attributes::get_string(const std::string& name) const {
  return get<std::string>(name, "string");
}

std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  return has(name) ? get_string(name) : fallback;
}

const std::vector<int64_t>& Attributes::get_ints(const std::string& name) const {
  return get<std::vector<int64_t>>(name, "ints");
}

std::vector<int64_t> Attributes::get_ints(const std::string& name,
                                          const std::vector<int64_t>& fallback) const {
  return has(name) ? get_ints(name) : fallback;
}

const std::vector<float>& Attributes::get_floats(const std::string& name) const {
  return get<std::vector<float>>(name, "floats");
}

const Tensor& Attributes::get_tensor(const std::string& name) const {
  return get<Tensor>(name, "tensor");
}

std::vector<std::string> Attributes::get_strings(const std::string& name,
                                                 const std::vector<std::string>& fallback) const {
  return has(name) ? get<std::vector<std::string>>(name, "strings") : fallback;
}

namespace {
struct ValueFormatter {
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(float v) const { return fmt::format("{}", v); }
  std::string operator()(const std::string& v) const { return "'" + v + "'"; }
  std::string operator()(const std::vector<int64_t>& v) const {
    return fmt::format("[{}]", fmt::join(v, ","));
  }
  std::string operator()(const std::vector<float>& v) const {
    return fmt::format("[{}]", fmt::join(v, ","));
  }
  std::string operator()(const Tensor& v) const { return "tensor " + v.type().to_string(); }
  std::string operator()(const std::vector<std::string>& v) const {
    return fmt::format("[{}]", fmt::join(v, ","));
  }
};
}  // namespace

std::string Attributes::to_string() const {
  std::string text;
  for (const auto& [name, value] : values_) {
    if (!text.empty()) text += " ";
    text += name + "=" + std::visit(ValueFormatter{}, value);
  }
  return text;
}

}  // namespace nee
