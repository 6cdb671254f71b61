#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nee {

// CUDA device 0 of this machine, as its driver reports it.
struct CudaDevice {
  std::string name;  // e.g. "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability

  // "NVIDIA H200 (sm_90)": how a measuring device names it.
  std::string label() const;
};

// The CUDA driver, libcuda.so.1, opened once per process with RTLD_GLOBAL and kept open
// for the process's life, as the driver must be; nullptr where it is absent. Opened at
// run time so that nothing links to it: nee-measure and the tuner run on machines
// without a driver too. A CUDA kernel library's Halide runtime needs it open before its
// first call: Halide 14 looks the driver's symbols up in the process, and failing that
// dlopens "libcuda.so", a name only the driver's development symlink provides, which
// machines and containers with the driver alone lack (halide/Halide#5789). Where it is
// absent Halide reports "CUDA API not found" through the kernel's error.
void* open_cuda_driver();

// Asks the driver (open_cuda_driver). Empty where the driver is absent or sees no device.
std::optional<CudaDevice> cuda_device();

// The CUDA capabilities Halide 14 compiles for, ascending, as tens: 30, ..., 86.
const std::vector<int>& halide_cuda_capabilities();

// The highest of halide_cuda_capabilities() that a device of capability major.minor
// runs; a newer device runs the PTX of an older capability, which its driver compiles
// for it (an H200, 9.0, gets 86).
int halide_cuda_capability(int major, int minor);

}  // namespace nee
