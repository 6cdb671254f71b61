#include "runtime/reference/parallel_ranges.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace nee {

namespace {

std::atomic<PartsRunner> g_runner{nullptr};
std::atomic<int> g_runner_threads{0};

}  // namespace

void install_parallel_runner(PartsRunner runner, int threads) {
  g_runner_threads.store(threads);
  g_runner.store(runner);
}

int64_t parallel_threads() {
  if (g_runner.load()) return g_runner_threads.load();
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

int64_t workers_for(int64_t work, int64_t work_per_worker, int64_t units) {
  return std::clamp<int64_t>(std::min(parallel_threads(), work / work_per_worker), 1, std::max<int64_t>(1, units));
}

void run_in_parallel(int64_t units, int64_t workers, const std::function<void(int64_t, int64_t)>& fn) {
  const auto part = [&](int64_t w) { fn(units * w / workers, units * (w + 1) / workers); };
  if (workers <= 1) return fn(0, units);
  if (const PartsRunner runner = g_runner.load()) return runner(workers, part);
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(part, w);
  part(0);
  for (std::thread& t : threads) t.join();
}

}  // namespace nee
