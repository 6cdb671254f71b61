#pragma once
#include <cstdint>

namespace nee {

// Extent arithmetic of a window sliding along one axis, shared by the importer, the
// reference kernels and the workload constructors (core cannot depend on runtime/).

// (kernel - 1) * dilation + 1: the input extent one window covers.
int64_t dilated_extent(int64_t kernel, int64_t dilation);

// Output extent of a sliding window along one axis. With ceil_mode the last partial
// window is kept, except one that would start inside the end padding (PyTorch's rule;
// without it that window would hold padding only).
int64_t sliding_output_size(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                            int64_t pad_begin, int64_t pad_end, bool ceil_mode);

}  // namespace nee
