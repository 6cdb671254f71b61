#pragma once

namespace nee {

// NEE_VERSION comes from the CMake project version.
inline constexpr const char* kVersion = NEE_VERSION;

// Version of the flat C ABI between a kernel bundle and the runtime. Bump it whenever
// the exported table (runtime/bundle_abi.h) or the manifest's layout changes shape.
// 2: one library per ISA level (the manifest's "variants").
inline constexpr int kBundleAbiVersion = 2;

}  // namespace nee
