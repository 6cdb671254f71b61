#pragma once
#include <string>

#include "core/workload.h"

namespace nee::bench {

// The arithmetic a kernel executes for a workload, which the family's count (the direct
// algorithm's FLOPs, the rate every engine is compared at) need not be.
struct ExecutedWork {
  double flops = 0;
  std::string method;  // "direct", or the fast algorithm, e.g. "Winograd F(4x4,3x3)"
};

// What NEE's kernel of `kernel_workload` (the form NeeEngine builds: runtime layout,
// maybe Winograd-transformed weights) executes. A Winograd conv2d with tile m, alpha =
// m + 2, N images and ceil(OH/m) x ceil(OW/m) tiles per image executes per tile:
//   alpha^2 products over C input and O output channels (O rounded up to the 16-channel
//   weight block, whose padding lanes are computed too): 2 alpha^2 C O FLOPs;
//   the input transform B^T d B per input channel and the output transform A^T M A per
//   output channel, counted as kernels/conv2d_algorithm.cpp writes them: one add per
//   coefficient after the first nonzero one, one multiply per coefficient other than
//   +-1, inner sums shared across the outer loop.
// Anything else executes the family's count.
ExecutedWork kernel_executed_work(const Workload& kernel_workload);

}  // namespace nee::bench
