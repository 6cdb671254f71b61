#pragma once

namespace nee {

// Makes the CUDA driver API visible to a CUDA kernel library's Halide runtime, before its
// first call. Halide 14 looks the driver's symbols up in the process, and failing that
// dlopens "libcuda.so", a name only the driver's development symlink provides; machines
// and containers with the driver alone have libcuda.so.1 (halide/Halide#5789). Loading
// libcuda.so.1 with RTLD_GLOBAL puts its symbols in the process, where Halide's first
// lookup finds them. Does nothing where libcuda.so.1 is absent: Halide then reports
// "CUDA API not found" through the kernel's error, as before.
void expose_cuda_driver();

}  // namespace nee
