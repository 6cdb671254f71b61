#include "tuner/measure/cache_eviction.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace nee {

#if defined(__x86_64__)

namespace {

// clflushopt evicts without waiting for each line: 0.45 ms for 9.4 MB here, against 22 ms
// for clflush, whose flushes are ordered one after another.
bool has_clflushopt() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 23));
}

__attribute__((target("clflushopt"))) void evict_lines_unordered(const char* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) _mm_clflushopt(const_cast<char*>(p + i));
  _mm_clflushopt(const_cast<char*>(p + bytes - 1));
}

void evict_lines_ordered(const char* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) _mm_clflush(p + i);
  _mm_clflush(p + bytes - 1);
}

}  // namespace

void evict_from_caches(const void* data, size_t bytes) {
  static const bool unordered = has_clflushopt();
  if (bytes == 0) return;
  const char* p = static_cast<const char*>(data);
  unordered ? evict_lines_unordered(p, bytes) : evict_lines_ordered(p, bytes);
}

void wait_for_evictions() { _mm_mfence(); }

#elif defined(__aarch64__)

namespace {

// The smallest data cache line of any level: CTR_EL0.DminLine, log2 of 4-byte words.
size_t smallest_line_bytes() {
  unsigned long ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return size_t{4} << ((ctr >> 16) & 0xf);
}

}  // namespace

void evict_from_caches(const void* data, size_t bytes) {
  static const size_t line = smallest_line_bytes();
  if (bytes == 0) return;
  const char* p = static_cast<const char*>(data);
  for (size_t i = 0; i < bytes; i += line) asm volatile("dc civac, %0" : : "r"(p + i) : "memory");
  asm volatile("dc civac, %0" : : "r"(p + bytes - 1) : "memory");
}

void wait_for_evictions() { asm volatile("dsb ish" : : : "memory"); }

#else
#error "cache eviction is written for x86-64 and 64-bit ARM"
#endif

}  // namespace nee
