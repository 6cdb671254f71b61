#pragma once
#include <string>

#include "runtime/tensor.h"

namespace nee {

// A workload's expected output on one seed's random inputs, stored so that the
// candidates of a batch that share the workload and seed compare against one computed
// reference. At 4096 cubed one CPU candidate took nee-measure 38.8 s with the reference
// computed in it and 22.2 s with it stored, the same largest error either way (2-core
// build machine). The file holds the tensor's raw float32 elements.

// Writes a temporary file, syncs it and renames it, so a kill or a crash leaves no
// partial reference under the name.
void write_reference_file(const std::string& path, const Tensor& reference);
// Throws nee::Error unless the file holds exactly `type`'s elements.
Tensor read_reference_file(const std::string& path, const TensorType& type);

}  // namespace nee
