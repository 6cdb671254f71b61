#pragma once
#include <cstdint>

#include <HalideRuntime.h>

namespace nee {

// How the kernel pool runs: `threads` counts the calling thread, so 2 means one worker.
// After a parallel loop, workers spin for `spin_us` microseconds before they sleep, so
// the next kernel of a model finds them awake.
struct KernelPoolSettings {
  int threads = 1;
  int spin_us = 1000;
};

// The one pool that runs the parallel loops of every kernel library this process loads
// (installed into each library's Halide runtime as its do_par_for). Halide's own pool puts
// its workers to sleep on a futex the moment a loop ends, and the caller sleeps too when
// the last tasks are not its own; a model runs dozens of short kernels back to back, so
// every kernel paid for waking threads.
//
// Loops run one at a time: a second thread that starts a loop waits for the first, and a
// loop started inside a task, or in a pool without workers, runs serially on the thread
// that started it (without waiting). A task's nonzero return is the loop's result.
void configure_kernel_pool(const KernelPoolSettings& settings);
KernelPoolSettings kernel_pool_settings();
int kernel_pool_do_par_for(void* user_context, halide_task_t task, int min, int size, uint8_t* closure);

}  // namespace nee
