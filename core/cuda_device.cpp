#include "core/cuda_device.h"

#include <dlfcn.h>

#include <array>

namespace nee {

std::string CudaDevice::label() const {
  return name + " (sm_" + std::to_string(major) + std::to_string(minor) + ")";
}

void* open_cuda_driver() {
  static void* const driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  return driver;
}

std::optional<CudaDevice> cuda_device() {
  // The driver API's signatures and attribute numbers, from CUDA 13.0's cuda.h.
  using CuInit = int (*)(unsigned);
  using CuDeviceGet = int (*)(int*, int);
  using CuDeviceGetName = int (*)(char*, int, int);
  using CuDeviceGetAttribute = int (*)(int*, int, int);
  constexpr int kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76;

  void* const driver = open_cuda_driver();
  if (!driver) return std::nullopt;
  const auto init = reinterpret_cast<CuInit>(dlsym(driver, "cuInit"));
  const auto get = reinterpret_cast<CuDeviceGet>(dlsym(driver, "cuDeviceGet"));
  const auto get_name = reinterpret_cast<CuDeviceGetName>(dlsym(driver, "cuDeviceGetName"));
  const auto get_attribute = reinterpret_cast<CuDeviceGetAttribute>(dlsym(driver, "cuDeviceGetAttribute"));
  if (!init || !get || !get_name || !get_attribute || init(0) != 0) return std::nullopt;
  int device = 0;
  std::array<char, 256> name{};
  CudaDevice d;
  if (get(&device, 0) != 0 || get_name(name.data(), static_cast<int>(name.size()), device) != 0 ||
      get_attribute(&d.major, kComputeCapabilityMajor, device) != 0 ||
      get_attribute(&d.minor, kComputeCapabilityMinor, device) != 0) {
    return std::nullopt;
  }
  d.name = name.data();
  return d;
}

const std::vector<int>& halide_cuda_capabilities() {
  // Halide's CUDACapability features (Halide.h, Target::Feature), the same in 14 and 21.
  static const std::vector<int> capabilities = {30, 32, 35, 50, 61, 70, 75, 80, 86};
  return capabilities;
}

int halide_cuda_capability(int major, int minor) {
  const int device = 10 * major + minor;
  int best = halide_cuda_capabilities().front();
  for (const int c : halide_cuda_capabilities()) {
    if (c <= device) best = c;
  }
  return best;
}

}  // namespace nee
