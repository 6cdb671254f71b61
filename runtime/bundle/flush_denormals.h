#pragma once

namespace nee {

// Kernels run with denormal floats flushed to zero, as inputs and as results (x86's
// MXCSR DAZ and FTZ bits, AArch64's FPCR FZ). A denormal operand costs an x86 core a
// microcode assist per instruction. Halide's vector code computes on lanes of its own
// heap buffers that it never wrote (pre-filled with denormals, a kernel slows; with NaN,
// its outputs are unchanged), and where those lanes held denormals left in the heap,
// ViT-small's twelve attention kernels took 54 ms per run instead of 6.6 (their buffers
// pre-filled with 1e-40), and 34.6 after the model's unfused bundle had run in the same
// process (DESIGN-NOTES, "Attention as one kernel, opt-in; kernels flush denormals");
// flushed, 7.0 and 6.6. Values below 1.2e-38 are far below any tolerance an output is
// checked to.

// While it lives, this thread flushes denormals; the previous mode comes back after.
class FlushDenormals {
 public:
  FlushDenormals();
  ~FlushDenormals();
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned long long saved_;
};

// Whether this thread flushes denormals now (for tests).
bool denormals_flushed();

}  // namespace nee
