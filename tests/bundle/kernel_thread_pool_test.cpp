#include "runtime/bundle/kernel_thread_pool.h"

#include <gtest/gtest.h>

#include <cfloat>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/bundle/flush_denormals.h"
#include "runtime/reference/parallel_ranges.h"

namespace nee {
namespace {

// A loop's closure: how often each index ran, and which threads ran them.
struct Counts {
  explicit Counts(int size) : runs(size) {}
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  int sleep_us = 0;
  int fail_at = -1;
};

int count_task(void*, int index, uint8_t* closure) {
  auto& c = *reinterpret_cast<Counts*>(closure);
  c.runs.at(index).fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.threads.insert(std::this_thread::get_id());
  }
  if (c.sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(c.sleep_us));
  return index == c.fail_at ? 7 : 0;
}

// Runs loop [0, size) and expects every index to have run exactly once.
void expect_each_index_once(int size, int sleep_us = 0) {
  Counts counts(size);
  counts.sleep_us = sleep_us;
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, count_task, 0, size, reinterpret_cast<uint8_t*>(&counts)), 0);
  for (int i = 0; i < size; ++i) ASSERT_EQ(counts.runs[i].load(), 1) << "index " << i << " of " << size;
}

class KernelPool : public ::testing::Test {
 protected:
  void TearDown() override { configure_kernel_pool({1, 0}); }
};

TEST_F(KernelPool, EveryIndexRunsOnceAcrossManyLoops) {
  for (int spin_us : {0, 1000}) {
    configure_kernel_pool({3, spin_us});
    for (int loop = 0; loop < 3000; ++loop) expect_each_index_once(1 + loop % 37);
  }
}

// Workers that spun out and slept are woken by the next loop, however long they slept.
TEST_F(KernelPool, SleepingWorkersWakeForTheNextLoop) {
  configure_kernel_pool({2, 0});
  for (int loop = 0; loop < 20; ++loop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    expect_each_index_once(16);
  }
}

TEST_F(KernelPool, LoopsShareTheWorkBetweenThreads) {
  configure_kernel_pool({2, 1000});
  Counts counts(8);
  counts.sleep_us = 3000;
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, count_task, 0, 8, reinterpret_cast<uint8_t*>(&counts)), 0);
  EXPECT_EQ(counts.threads.size(), 2u);
  EXPECT_EQ(kernel_pool_settings().threads, 2);
}

TEST_F(KernelPool, OneThreadRunsOnTheCaller) {
  configure_kernel_pool({1, 1000});
  Counts counts(8);
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, count_task, 0, 8, reinterpret_cast<uint8_t*>(&counts)), 0);
  EXPECT_EQ(counts.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_F(KernelPool, ATaskFailureIsTheLoopsResult) {
  configure_kernel_pool({3, 1000});
  Counts counts(40);
  counts.fail_at = 17;
  EXPECT_EQ(kernel_pool_do_par_for(nullptr, count_task, 0, 40, reinterpret_cast<uint8_t*>(&counts)), 7);
  // The pool is usable after a failed loop.
  expect_each_index_once(40);
}

TEST_F(KernelPool, IndicesStartAtTheLoopsMin) {
  configure_kernel_pool({2, 1000});
  Counts counts(30);
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, count_task, 10, 20, reinterpret_cast<uint8_t*>(&counts)), 0);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(counts.runs[i].load(), i >= 10 ? 1 : 0) << i;
}

// Once configured, the pool runs the reference kernels' parallel parts on its own threads
// (never threads started beside its spinning workers), each part on a thread of its own,
// and as many threads as it has.
TEST_F(KernelPool, ReferenceKernelsRunTheirPartsOnThePoolsThreads) {
  configure_kernel_pool({2, 1000});
  EXPECT_EQ(parallel_threads(), 2);
  EXPECT_EQ(workers_for(int64_t{1} << 30, 1, 10), 2);
  Counts pool_threads(8);
  pool_threads.sleep_us = 3000;
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, count_task, 0, 8, reinterpret_cast<uint8_t*>(&pool_threads)), 0);
  ASSERT_EQ(pool_threads.threads.size(), 2u);
  Counts parts(10);
  std::mutex mutex;
  std::vector<std::thread::id> part_threads;
  run_in_parallel(10, 2, [&](int64_t begin, int64_t end) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      part_threads.push_back(std::this_thread::get_id());
    }
    for (int64_t i = begin; i < end; ++i) parts.runs.at(static_cast<size_t>(i)).fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  });
  for (int i = 0; i < 10; ++i) EXPECT_EQ(parts.runs[i].load(), 1) << i;
  ASSERT_EQ(part_threads.size(), 2u);
  EXPECT_NE(part_threads[0], part_threads[1]);
  for (const std::thread::id& id : part_threads) EXPECT_EQ(pool_threads.threads.count(id), 1u);
  configure_kernel_pool({1, 0});
  EXPECT_EQ(parallel_threads(), 1);
  EXPECT_EQ(workers_for(int64_t{1} << 30, 1, 10), 1);
}

int nested_task(void*, int index, uint8_t* closure) {
  Counts& mine = reinterpret_cast<std::deque<Counts>*>(closure)->at(index);
  return kernel_pool_do_par_for(nullptr, count_task, 0, 5, reinterpret_cast<uint8_t*>(&mine));
}

// A loop inside a task runs serially on that task's thread instead of waiting for a pool
// that is busy with the outer loop.
TEST_F(KernelPool, ALoopInsideATaskRunsSerially) {
  configure_kernel_pool({2, 1000});
  std::deque<Counts> inner;
  for (int i = 0; i < 6; ++i) inner.emplace_back(5);
  ASSERT_EQ(kernel_pool_do_par_for(nullptr, nested_task, 0, 6, reinterpret_cast<uint8_t*>(&inner)), 0);
  for (Counts& c : inner) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(c.runs[i].load(), 1);
    EXPECT_EQ(c.threads.size(), 1u);
  }
}

TEST_F(KernelPool, LoopsFromSeveralCallersAllComplete) {
  configure_kernel_pool({2, 1000});
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&failures, t] {
      for (int loop = 0; loop < 300; ++loop) {
        const int size = 2 + (loop + t) % 19;
        Counts counts(size);
        if (kernel_pool_do_par_for(nullptr, count_task, 0, size, reinterpret_cast<uint8_t*>(&counts)) != 0) {
          failures.fetch_add(1);
        }
        for (int i = 0; i < size; ++i) {
          if (counts.runs[i].load() != 1) failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(KernelPool, ResizingKeepsLoopsCorrect) {
  for (int threads : {2, 4, 1, 3}) {
    configure_kernel_pool({threads, 200});
    EXPECT_EQ(kernel_pool_settings().threads, threads);
    for (int loop = 0; loop < 200; ++loop) expect_each_index_once(1 + loop % 23);
  }
}


// A denormal operand in a kernel reads as zero and a denormal result is zero, on the
// calling thread while a kernel runs and on every worker; the caller's mode comes back
// after.
struct FlushSeen {
  std::atomic<int> flushed{0}, runs{0};
};

int flush_task(void*, int, uint8_t* closure) {
  auto& seen = *reinterpret_cast<FlushSeen*>(closure);
  volatile float tiny = FLT_MIN / 4;  // a denormal
  volatile float product = tiny * 1.0f;
  if (denormals_flushed() && product == 0.0f) seen.flushed.fetch_add(1);
  seen.runs.fetch_add(1);
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  return 0;
}

TEST_F(KernelPool, KernelsFlushDenormalsOnEveryThreadAndCallersGetTheirModeBack) {
  if (!denormals_flushed()) {
    volatile float tiny = FLT_MIN / 4;
    EXPECT_NE(tiny * 1.0f, 0.0f);  // this thread keeps denormals outside a kernel
  }
  const bool before = denormals_flushed();
  configure_kernel_pool({3, 0});
  {
    const FlushDenormals flush;  // as HalideKernel::call holds it around a kernel
    FlushSeen seen;
    ASSERT_EQ(kernel_pool_do_par_for(nullptr, flush_task, 0, 24, reinterpret_cast<uint8_t*>(&seen)), 0);
    EXPECT_EQ(seen.runs.load(), 24);
    EXPECT_EQ(seen.flushed.load(), 24);
  }
  EXPECT_EQ(denormals_flushed(), before);
}
}  // namespace
}  // namespace nee
