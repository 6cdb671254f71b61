#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/version.h"

namespace nee {

// What a measurement depends on besides the code: the processor and its caches. Records
// count as measured on this machine only when the fingerprint matches.
struct DeviceFingerprint {
  std::string cpu_model;
  int cores = 0;
  int64_t l1d_bytes = 0;
  int64_t l2_bytes = 0;
  int64_t l3_bytes = 0;
  std::string device;  // accelerator name for GPU targets, empty for the CPU

  std::string hash() const;  // first 16 hex digits of sha256 of the JSON
  nlohmann::json to_json() const;
  static DeviceFingerprint from_json(const nlohmann::json& j);
  static DeviceFingerprint of_host();
};

enum class TargetKind { cpu, opencl, cuda };

std::string to_string(TargetKind k);
TargetKind target_kind_from_string(const std::string& name);

// This machine as the measuring device for a kind of target: of_host(), with the
// accelerator named for GPU kinds. nee-measure records it with every batch result.
DeviceFingerprint measuring_device(TargetKind kind);

// The cache state a kernel's times are taken in. warm: its buffers stay cached from call
// to call, as in a kernel benchmark. cold: every timed call starts with its inputs,
// weights and output evicted from every cache level, the state a layer meets in a model
// run (DESIGN-NOTES, "Kernels meet cold caches in a model"). Times taken in one state
// are never ranked against times taken in the other.
enum class CacheState { warm, cold };

std::string to_string(CacheState s);
CacheState cache_state_from_string(const std::string& name);

// A compilation and measurement target: a Halide target string, the Halide release that
// compiles it, the device it was measured on and the cache state of its times. The kind
// is derived from the Halide features.
struct Target {
  std::string halide;  // full Halide target string, e.g. x86-64-linux-avx-avx2-f16c-fma-sse41
  DeviceFingerprint device;
  CacheState cache = CacheState::warm;
  // The major version of the Halide that compiles the kernels: one release's code may run
  // at another speed than another's, so their times are never ranked together.
  // Databases, exports and manifests from before it was recorded had Halide 14's.
  int halide_major = kHalideMajor;

  TargetKind kind() const;
  bool has_feature(const std::string& feature) const;
  // halide + "@" + device.hash(), then "/h<major>" for a Halide after 14 and "/cold" for
  // cold times (the keys of files written before either existed stay as they were).
  std::string key() const;
  nlohmann::json to_json() const;
  static Target from_json(const nlohmann::json& j);
};

// The major version in a Halide version text ("21.0.0"); kLegacyHalideMajor where the
// text has none.
int halide_major_of(const std::string& version);

}  // namespace nee
