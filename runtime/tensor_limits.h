#pragma once
#include <cstdint>
#include <string>

#include "core/workload.h"

namespace nee {

// No single tensor may exceed this; a few bytes of a model file can declare dims whose
// product is astronomically large, and allocating that must fail with a clear error.
inline constexpr int64_t kMaxTensorBytes = int64_t{4} << 30;

// Element count of `type`, after checking that no dim is negative, that the product
// does not overflow and that the bytes stay within kMaxTensorBytes. `what` names the
// tensor in the error.
int64_t checked_elements(const TensorType& type, const std::string& what);

}  // namespace nee
