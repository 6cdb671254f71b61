#include "runtime/tensor_limits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace nee {

int64_t checked_elements(const TensorType& type, const std::string& what) {
  int64_t elements = 1;
  for (int64_t d : type.shape) {
    if (d < 0) throw Error(fmt::format("{} has a negative dimension: [{}]", what, fmt::join(type.shape, ",")));
    if (__builtin_mul_overflow(elements, d, &elements)) {
      throw Error(fmt::format("{} has dims [{}] whose product overflows 64 bits", what,
                              fmt::join(type.shape, ",")));
    }
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(dtype_size(type.dtype)), &bytes) ||
      bytes > kMaxTensorBytes) {
    throw Error(fmt::format("{} of type {} would take {} elements, over the {} GiB limit per tensor",
                            what, type.to_string(), elements, kMaxTensorBytes >> 30));
  }
  return elements;
}

}  // namespace nee
