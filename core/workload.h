#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.h"

namespace nee {

struct TensorType {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;

  int64_t elements() const;
  std::string to_string() const;  // "f32[128,768]"
  bool operator==(const TensorType& other) const {
    return dtype == other.dtype && shape == other.shape;
  }
};

// A family's attributes, typed and checked once, when the workload is made (each
// family's own struct, in its core/<family>_workload.cpp, read through that family's
// accessors). They are text only at the edges: the key, database rows, manifests.
class WorkloadAttrs {
 public:
  virtual ~WorkloadAttrs() = default;
  // The canonical form (nlohmann::json sorts an object's keys, so equal attributes give
  // equal text); each family keeps the form its keys have always had, so databases and
  // bundles written before still find their workloads.
  virtual nlohmann::json to_json() const = 0;
};

// One kernel instance to tune and run: an operator family, its attributes and static
// shapes. Two graph nodes that compute the same thing map to the same Workload, and so
// to the same key, in the tuner and in the runtime alike.
struct Workload {
  std::string op;  // operator family, e.g. "matmul"
  std::shared_ptr<const WorkloadAttrs> attrs;
  std::vector<TensorType> inputs;
  TensorType output;

  std::string key() const;   // canonical text, e.g. matmul(f32[4,8],f32[8,2])->f32[4,2]{...}
  std::string hash() const;  // first 16 hex digits of sha256(key)
  double flops() const;
  nlohmann::json attrs_json() const;  // null for a workload without attributes

  // The attributes as the family's own type; nee::Error when they are another's.
  template <typename T>
  const T& attrs_as() const {
    const T* typed = dynamic_cast<const T*>(attrs.get());
    if (!typed) refuse_attrs();
    return *typed;
  }

  nlohmann::json to_json() const;
  // Refuses (nee::Error) an unknown family and attributes the family does not read back
  // exactly: a key a later NEE added, a value of the wrong type.
  static Workload from_json(const nlohmann::json& j);

 private:
  [[noreturn]] void refuse_attrs() const;
};

// ONNX multidirectional broadcasting; throws nee::Error on mismatch.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace nee
