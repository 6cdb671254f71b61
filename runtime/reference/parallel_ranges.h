#pragma once
#include <cstdint>
#include <functional>

namespace nee {

// The threads reference kernels may use: the installed runner's, else the cores.
int64_t parallel_threads();

// Threads for a reference kernel of `work` (bytes moved, multiply-adds): one for every
// `work_per_worker`, at least one, at most `units` (the pieces it splits into) and at most
// parallel_threads().
int64_t workers_for(int64_t work, int64_t work_per_worker, int64_t units);

// fn(begin, end) over `workers` (at most parallel_threads()) contiguous parts of [0, units),
// each on a thread of its own, all finished on return: on the installed runner, else the
// first part on the calling thread and the rest on threads started for it.
void run_in_parallel(int64_t units, int64_t workers, const std::function<void(int64_t, int64_t)>& fn);

// Runs part(i) for every i in [0, parts) on `threads` threads, returning when all are done.
using PartsRunner = void (*)(int64_t parts, const std::function<void(int64_t)>& part);

// Makes `runner` (null for none) run the reference kernels' parallel parts from now on:
// the kernel pool installs itself when configured, because its workers spin between a
// model's kernels, and threads of a kernel's own beside them ran a style-transfer CNN's
// group norms at half the speed (12-13 ms against 6.4-6.6 with the pool not spinning).
void install_parallel_runner(PartsRunner runner, int threads);

}  // namespace nee
