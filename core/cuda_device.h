#pragma once
#include <optional>
#include <string>

namespace nee {

// CUDA device 0 of this machine, as its driver reports it.
struct CudaDevice {
  std::string name;  // e.g. "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability

  // "NVIDIA H200 (sm_90)": how a measuring device names it.
  std::string label() const;
};

// Asks the driver through libcuda.so.1, opened at run time, so that nothing links to
// it: nee-measure and the tuner run on machines without a driver too. Empty where the
// driver is absent or sees no device.
std::optional<CudaDevice> cuda_device();

// The highest CUDA capability Halide 14 compiles for (30, 32, 35, 50, 61, 70, 75, 80,
// 86) that a device of capability major.minor runs; a newer device runs the PTX of an
// older capability, which its driver compiles for it (an H200, 9.0, gets 86).
int halide_cuda_capability(int major, int minor);

}  // namespace nee
