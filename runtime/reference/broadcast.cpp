#include "runtime/reference/broadcast.h"

namespace nee {

std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& out_shape) {
  std::vector<int64_t> strides(out_shape.size(), 0);
  const size_t offset = out_shape.size() - shape.size();
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[offset + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace nee
