#include "runtime/bundle/kernel_thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/bundle/flush_denormals.h"
#include "runtime/reference/parallel_ranges.h"

namespace nee {

namespace {

// A spinning thread's hint to the core that it waits (and, on x86, to a sibling
// hyperthread that it may have the core).
inline void spin_pause() {
#if defined(__x86_64__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// True on a thread while it runs a loop's task; a loop started there runs serially.
thread_local bool t_in_task = false;

// One 64-bit word hands out a loop's tasks: the loop's generation in the high half and
// the number of tasks not yet claimed in the low half. A claim is a compare-and-swap on
// both, so a thread that arrives after its loop ended can never take a task of the next.
constexpr int kGenerationShift = 32;
constexpr uint64_t kCountMask = 0xffffffffu;

struct Loop {
  halide_task_t task = nullptr;
  void* user_context = nullptr;
  uint8_t* closure = nullptr;
  int min = 0;
  int size = 0;
  std::atomic<int> done{0};
  std::atomic<int> result{0};
};

class Pool {
 public:
  ~Pool() { stop_workers(); }

  void configure(const KernelPoolSettings& settings) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (settings.threads == settings_.threads && settings.spin_us == settings_.spin_us) return;
    stop_workers();
    settings_ = settings;
    stop_.store(false);
    const uint32_t generation = static_cast<uint32_t>(ticket_.load() >> kGenerationShift);
    for (int i = 1; i < settings.threads; ++i) workers_.emplace_back([this, generation, spin = settings.spin_us] { work(generation, spin); });
  }

  KernelPoolSettings settings() {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    return settings_;
  }

  int run(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
    if (size <= 0) return 0;
    if (t_in_task || size == 1) return run_serially(user_context, task, min, size, closure);
    // A pool without workers runs every loop on the thread that starts it, outside the
    // lock, so that overlapping runs do not take turns. With workers, a loop waits for the
    // one running: running it on its own thread instead took the BERT-style encoder's
    // throughput from two threads of one session to 0.70 of one thread's on 2 cores,
    // against 0.89 waiting (bench/api/concurrent_runs.py, session 26: the spinning worker
    // and both callers share the 2 cores).
    std::unique_lock<std::mutex> submit(submit_mutex_);
    if (workers_.empty()) {
      submit.unlock();
      return run_serially(user_context, task, min, size, closure);
    }

    loop_.task = task;
    loop_.user_context = user_context;
    loop_.closure = closure;
    loop_.min = min;
    loop_.size = size;
    loop_.done.store(0, std::memory_order_relaxed);
    loop_.result.store(0, std::memory_order_relaxed);
    const uint32_t generation = static_cast<uint32_t>(ticket_.load() >> kGenerationShift) + 1;
    ticket_.store((uint64_t{generation} << kGenerationShift) | static_cast<uint32_t>(size));
    if (sleepers_.load() > 0) {
      { std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
    }
    run_claimed_tasks(generation);
    while (loop_.done.load(std::memory_order_acquire) < size) spin_pause();
    return loop_.result.load(std::memory_order_relaxed);
  }

 private:
  static int run_serially(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
    for (int i = min; i < min + size; ++i) {
      if (int r = task(user_context, i, closure)) return r;
    }
    return 0;
  }

  bool claim(uint32_t generation, int& index) {
    uint64_t t = ticket_.load(std::memory_order_acquire);
    while ((t >> kGenerationShift) == generation && (t & kCountMask) != 0) {
      if (ticket_.compare_exchange_weak(t, t - 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
        // The loop cannot end while this claim is unfinished, so its fields are stable.
        index = loop_.min + loop_.size - static_cast<int>(t & kCountMask);
        return true;
      }
    }
    return false;
  }

  void run_claimed_tasks(uint32_t generation) {
    t_in_task = true;
    int index = 0;
    while (claim(generation, index)) {
      if (int r = loop_.task(loop_.user_context, index, loop_.closure)) {
        int none = 0;
        loop_.result.compare_exchange_strong(none, r, std::memory_order_relaxed);
      }
      loop_.done.fetch_add(1, std::memory_order_release);
    }
    t_in_task = false;
  }

  void work(uint32_t seen, int spin_us) {
    // The worker runs nothing but kernels' tasks: it flushes denormals as their callers do
    // (HalideKernel::call).
    const FlushDenormals flush;
    using Clock = std::chrono::steady_clock;
    const auto spin = std::chrono::microseconds(spin_us);
    auto idle_since = Clock::now();
    for (int polls = 0;; ++polls) {
      const uint32_t generation = static_cast<uint32_t>(ticket_.load(std::memory_order_acquire) >> kGenerationShift);
      if (generation != seen) {
        seen = generation;
        run_claimed_tasks(generation);
        idle_since = Clock::now();
        continue;
      }
      if (stop_.load(std::memory_order_relaxed)) return;
      // Reading the clock costs about as much as 20 pauses, so it is read every 64th poll.
      if (polls % 64 != 0 || Clock::now() - idle_since < spin) {
        spin_pause();
        continue;
      }
      std::unique_lock<std::mutex> lock(sleep_mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, [&] { return stop_.load() || (ticket_.load() >> kGenerationShift) != seen; });
      sleepers_.fetch_sub(1);
      idle_since = Clock::now();
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::mutex submit_mutex_;  // one loop at a time; guards settings_ and workers_
  KernelPoolSettings settings_;
  std::vector<std::thread> workers_;
  Loop loop_;
  std::atomic<uint64_t> ticket_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

int run_part(void*, int index, uint8_t* closure) {
  (*reinterpret_cast<const std::function<void(int64_t)>*>(closure))(index);
  return 0;
}

// The reference kernels' parallel parts as one loop of the pool.
void run_parts_on_kernel_pool(int64_t parts, const std::function<void(int64_t)>& part) {
  pool().run(nullptr, run_part, 0, static_cast<int>(parts),
             reinterpret_cast<uint8_t*>(const_cast<std::function<void(int64_t)>*>(&part)));
}

}  // namespace

void configure_kernel_pool(const KernelPoolSettings& settings) {
  pool().configure(settings);
  install_parallel_runner(run_parts_on_kernel_pool, settings.threads);
}

KernelPoolSettings kernel_pool_settings() { return pool().settings(); }

int kernel_pool_do_par_for(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
  return pool().run(user_context, task, min, size, closure);
}

}  // namespace nee
