#pragma once
#include <cstdint>

#include "runtime/tensor.h"

namespace nee {

// Element i of an int32 or int64 index tensor (the importers admit no other index type).
inline int64_t index_at(const Tensor& indices, int64_t i) {
  return indices.dtype() == DType::i64 ? indices.data_as<int64_t>()[i] : indices.data_as<int32_t>()[i];
}

}  // namespace nee
