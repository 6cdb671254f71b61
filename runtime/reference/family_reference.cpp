#include "runtime/reference/family_reference.h"

namespace nee {

// One maker per family, in NEE_FAMILIES' order: a family without one does not link.
using ReferenceMaker = ReferenceFn (*)(const Workload&);
constexpr ReferenceMaker kReferenceMakers[] = {
#define NEE_REFERENCE_ROW(name) make_##name##_reference,
    NEE_FAMILIES(NEE_REFERENCE_ROW)
#undef NEE_REFERENCE_ROW
};

ReferenceFn make_family_reference(const Workload& workload) {
  return kReferenceMakers[static_cast<size_t>(family_of(workload).id)](workload);
}

void compute_reference(const Workload& workload, const std::vector<const Tensor*>& inputs, Tensor& output) {
  make_family_reference(workload)(inputs, {&output});
}

}  // namespace nee
