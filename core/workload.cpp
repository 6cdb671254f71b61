#include "core/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"
#include "core/json_numbers.h"

namespace nee {

int64_t TensorType::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorType::to_string() const {
  return fmt::format("{}[{}]", nee::to_string(dtype), fmt::join(shape, ","));
}

std::string Workload::key() const {
  std::string k = op + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) k += ",";
    k += inputs[i].to_string();
  }
  k += ")->" + output.to_string() + attrs_json().dump();
  return k;
}

std::string Workload::hash() const { return sha256_hex(key()).substr(0, 16); }

double Workload::flops() const { return family_of(*this).flops(*this); }

nlohmann::json Workload::attrs_json() const { return attrs ? attrs->to_json() : nlohmann::json(); }

void Workload::refuse_attrs() const {
  throw Error(fmt::format("a {} workload's attributes were read as another family's", op));
}

static nlohmann::json tensor_to_json(const TensorType& t) {
  return {{"dtype", nee::to_string(t.dtype)}, {"shape", t.shape}};
}

static TensorType tensor_from_json(const nlohmann::json& j) {
  TensorType t;
  t.dtype = dtype_from_string(j.at("dtype").get<std::string>());
  t.shape = json_ints(j.at("shape"), "a tensor's shape");
  return t;
}

nlohmann::json Workload::to_json() const {
  nlohmann::json in = nlohmann::json::array();
  for (const auto& t : inputs) in.push_back(tensor_to_json(t));
  return {{"op", op}, {"attrs", attrs_json()}, {"inputs", in}, {"output", tensor_to_json(output)}};
}

Workload Workload::from_json(const nlohmann::json& j) {
  try {
    Workload w;
    w.op = j.at("op").get<std::string>();
    const nlohmann::json& attrs = j.at("attrs");
    w.attrs = family_named(w.op).attrs_from_json(attrs);
    if (w.attrs->to_json() != attrs) {
      throw Error(fmt::format("{} attributes {} are not all ones this NEE reads (it reads them as {})", w.op,
                              attrs.dump(), w.attrs->to_json().dump()));
    }
    for (const auto& t : j.at("inputs")) w.inputs.push_back(tensor_from_json(t));
    w.output = tensor_from_json(j.at("output"));
    return w;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed workload description: ") + e.what());
  }
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(fmt::format("shapes [{}] and [{}] do not broadcast", fmt::join(a, ","),
                              fmt::join(b, ",")));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace nee
