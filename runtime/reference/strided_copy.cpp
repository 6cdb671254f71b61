#include "core/strided_copy_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Output dim k reads input dim perm[k] from starts[perm[k]], steps[perm[k]] apart: the
// copy that Transpose and Slice make, with the same arithmetic.
ReferenceFn make_strided_copy_reference(const Workload& w) {
  const StridedCopyAttrs a = strided_copy_attrs(w);
  const std::vector<int64_t> in_strides = dense_strides(w.inputs[0].shape);
  int64_t offset = 0;
  for (size_t d = 0; d < in_strides.size(); ++d) offset += a.starts[d] * in_strides[d];
  std::vector<int64_t> strides(a.perm.size());
  for (size_t k = 0; k < a.perm.size(); ++k) {
    const size_t d = static_cast<size_t>(a.perm[k]);
    strides[k] = a.steps[d] * in_strides[d];
  }
  const std::vector<int64_t> out_shape = w.output.shape;
  return [out_shape, strides, offset](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()),
                 dtype_size(in[0]->dtype()), out_shape, strides, offset);
  };
}

}  // namespace nee
