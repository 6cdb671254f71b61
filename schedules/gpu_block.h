#pragma once
#include <cstdint>

#include <Halide.h>

namespace nee {

// What one GPU thread block may hold on CUDA, which the GPU spaces' points respect: 1024
// threads, and 48 KiB of shared memory (Halide 14 sizes it at launch and does not ask
// the driver for the opt-in maximum). OpenCL devices state limits of their own, which
// may be lower (some mobile GPUs: 32 KiB, 256 work-items); points over them fail on
// such a device, and the tuner records the failure.
constexpr int64_t kGpuMaxThreadsPerBlock = 1024;
constexpr int64_t kGpuSharedBytesPerBlock = 48 * 1024;
// Thread blocks a default point's grid should have to keep a large GPU busy: about three
// quarters of an H200's 132 multiprocessors. There ResNet-50's 14x14 and 7x7 convs ran
// grids of 64 blocks and fewer and BERT's 128-token products 8, and taking smaller tiles
// where a grid is smaller than this took ResNet-50 from 6.68 to 3.75 ms at batch 1,
// together with deeper slices (docs/DESIGN-NOTES.md, "GPU figures, measured on an H200").
constexpr int64_t kGpuBlocksToFill = 96;

// Computes `f` at `at` (a loop between a kernel's block and thread loops) in shared
// memory, loaded by the block's threads_x x threads_y x threads_z threads together: f's
// dims fused into one index, consecutive threads on consecutive elements, each thread
// taking every (threads_x * threads_y * threads_z)-th, guarded where the last round runs
// past the region.
void load_into_shared(Halide::Func f, const Halide::LoopLevel& at, int threads_x, int threads_y, int threads_z);

}  // namespace nee
