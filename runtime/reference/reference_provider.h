#pragma once
#include <memory>

#include "runtime/kernel_provider.h"

namespace nee {

// The provider named "reference": plain C++ kernels for every op the importer accepts.
// The session always tries it last.
std::unique_ptr<KernelProvider> make_reference_provider();

}  // namespace nee
