#pragma once
#include <cstdint>
#include <memory>

namespace nee::bench {

// The memory-bandwidth probe: a STREAM-style triad a[i] = b[i] + s * c[i] over three
// arrays far larger than the last-level cache, split across threads in contiguous
// chunks. Bytes counted per pass are STREAM's: 3 arrays x 4 bytes x n (the write's
// read-for-ownership is not counted).
class TriadProbe {
 public:
  // Arrays of `bytes_per_array` each; first touched by the same threads that run the
  // triad, so their pages sit near those threads.
  TriadProbe(int64_t bytes_per_array, int threads);
  // One pass over the arrays; returns the bytes counted.
  double run();
  int64_t bytes_per_array() const { return static_cast<int64_t>(n_ * sizeof(float)); }
  // One element of the result (to keep the work observable; checked by the tests).
  float result_at(int64_t i) const { return a_[static_cast<size_t>(i)]; }

 private:
  template <typename F>
  void parallel_chunks(F&& body);
  int threads_;
  size_t n_;
  std::unique_ptr<float[]> a_, b_, c_;
};

// The last-level cache size from sysconf, or /sys's cpu0 cache index3; 32 MiB when
// neither says.
int64_t last_level_cache_bytes();

}  // namespace nee::bench
