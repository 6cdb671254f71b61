#include "runtime/bundle/flush_denormals.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace nee {

namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned long long kFlushBits = 0x8040;  // MXCSR FTZ (bit 15) and DAZ (bit 6)
unsigned long long mode() { return _mm_getcsr(); }
void set_mode(unsigned long long m) { _mm_setcsr(static_cast<unsigned>(m)); }
#elif defined(__aarch64__)
constexpr unsigned long long kFlushBits = 1ull << 24;  // FPCR FZ
unsigned long long mode() {
  unsigned long long m;
  asm volatile("mrs %0, fpcr" : "=r"(m));
  return m;
}
void set_mode(unsigned long long m) { asm volatile("msr fpcr, %0" : : "r"(m)); }
#else
constexpr unsigned long long kFlushBits = 0;
unsigned long long mode() { return 0; }
void set_mode(unsigned long long) {}
#endif

}  // namespace

FlushDenormals::FlushDenormals() : saved_(mode()) {
  if ((saved_ & kFlushBits) != kFlushBits) set_mode(saved_ | kFlushBits);
}

FlushDenormals::~FlushDenormals() {
  if ((saved_ & kFlushBits) != kFlushBits) set_mode(saved_);
}

bool denormals_flushed() { return kFlushBits != 0 && (mode() & kFlushBits) == kFlushBits; }

}  // namespace nee
