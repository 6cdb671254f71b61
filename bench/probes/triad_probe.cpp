#include "bench/probes/triad_probe.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"

namespace nee::bench {

namespace {

constexpr float kScale = 3.0f;

}  // namespace

TriadProbe::TriadProbe(int64_t bytes_per_array, int threads)
    : threads_(threads), n_(static_cast<size_t>(std::max<int64_t>(0, bytes_per_array)) / sizeof(float)) {
  if (n_ == 0 || threads < 1) throw Error("the triad probe needs a positive array size and thread count");
  // new float[n] leaves the pages untouched; the threads' first writes place them.
  a_.reset(new float[n_]), b_.reset(new float[n_]), c_.reset(new float[n_]);
  parallel_chunks([&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      a_[i] = 0.0f;
      b_[i] = static_cast<float>(i % 1024);
      c_[i] = 1.0f;
    }
  });
}

template <typename F>
void TriadProbe::parallel_chunks(F&& body) {
  const size_t n = n_, chunk = (n + threads_ - 1) / threads_;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads_; ++t) {
    const size_t begin = std::min(n, chunk * t), end = std::min(n, begin + chunk);
    workers.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (std::thread& w : workers) w.join();
}

double TriadProbe::run() {
  float* a = a_.get();
  const float* b = b_.get();
  const float* c = c_.get();
  parallel_chunks([=](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) a[i] = b[i] + kScale * c[i];
  });
  return 3.0 * static_cast<double>(n_ * sizeof(float));
}

int64_t last_level_cache_bytes() {
  const long from_sysconf = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (from_sysconf > 0) return from_sysconf;
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string text;
  if (in >> text && !text.empty()) {
    const int64_t value = std::stoll(text);
    const char unit = text.back();
    return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
  }
  return int64_t{32} << 20;
}

}  // namespace nee::bench
