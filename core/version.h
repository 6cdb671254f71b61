#pragma once

namespace nee {

// NEE_VERSION comes from the CMake project version.
inline constexpr const char* kVersion = NEE_VERSION;

// The major version of the Halide NEE compiles kernels with (tuner/compile/kernel_compiler.cpp
// checks it against Halide.h), and of the one before it, which records and manifests
// written before the version was recorded came from.
inline constexpr int kHalideMajor = 21;
inline constexpr int kLegacyHalideMajor = 14;

// Version of the flat C ABI between a kernel bundle and the runtime. Bump it whenever
// the exported table (runtime/bundle_abi.h) or the manifest's layout changes shape.
// 2: one library per ISA level (the manifest's "variants"). 3: kernels and runtime from
// Halide 21.
inline constexpr int kBundleAbiVersion = 3;

}  // namespace nee
