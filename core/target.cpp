#include "core/target.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "core/content_hash.h"
#include "core/cuda_device.h"
#include "core/error.h"
#include "core/json_numbers.h"

namespace nee {

std::string DeviceFingerprint::hash() const { return sha256_hex(to_json().dump()).substr(0, 16); }

nlohmann::json DeviceFingerprint::to_json() const {
  return {{"cpu_model", cpu_model}, {"cores", cores}, {"l1d_bytes", l1d_bytes},
          {"l2_bytes", l2_bytes},   {"l3_bytes", l3_bytes}, {"device", device}};
}

DeviceFingerprint DeviceFingerprint::from_json(const nlohmann::json& j) {
  DeviceFingerprint d;
  d.cpu_model = j.value("cpu_model", "");
  d.cores = json_int32_or(j, "cores", 0);
  d.l1d_bytes = json_int_or(j, "l1d_bytes", 0);
  d.l2_bytes = json_int_or(j, "l2_bytes", 0);
  d.l3_bytes = json_int_or(j, "l3_bytes", 0);
  d.device = j.value("device", "");
  return d;
}

static int64_t parse_cache_size(const std::string& text) {
  // sysfs writes sizes such as "32K" or "1024K" or "32M".
  int64_t value = 0;
  size_t i = 0;
  while (i < text.size() && isdigit(static_cast<unsigned char>(text[i]))) {
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) value *= 1024;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) value *= 1024 * 1024;
  return value;
}

static std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

DeviceFingerprint DeviceFingerprint::of_host() {
  DeviceFingerprint d;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      d.cpu_model = line.substr(line.find(':') + 2);
      break;
    }
  }
  d.cores = static_cast<int>(std::thread::hardware_concurrency());
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_line(dir + "type");
    const int64_t size = parse_cache_size(read_line(dir + "size"));
    if (level == "1" && type == "Data") d.l1d_bytes = size;
    if (level == "2") d.l2_bytes = size;
    if (level == "3") d.l3_bytes = size;
  }
  return d;
}

std::string to_string(TargetKind k) {
  switch (k) {
    case TargetKind::cpu: return "cpu";
    case TargetKind::opencl: return "opencl";
    case TargetKind::cuda: return "cuda";
  }
  return "?";
}

TargetKind target_kind_from_string(const std::string& name) {
  for (TargetKind k : {TargetKind::cpu, TargetKind::opencl, TargetKind::cuda}) {
    if (to_string(k) == name) return k;
  }
  throw Error("unknown target kind '" + name + "' (expected cpu, opencl or cuda)");
}

DeviceFingerprint measuring_device(TargetKind kind) {
  DeviceFingerprint d = DeviceFingerprint::of_host();
  if (kind != TargetKind::cpu) d.device = to_string(kind);
  // A CUDA result is the GPU's: "cuda NVIDIA H200 (sm_90)". Without a driver, "cuda".
  if (kind == TargetKind::cuda) {
    if (const std::optional<CudaDevice> gpu = cuda_device()) d.device += " " + gpu->label();
  }
  return d;
}

bool Target::has_feature(const std::string& feature) const {
  std::stringstream ss(halide);
  std::string part;
  while (std::getline(ss, part, '-')) {
    if (part == feature) return true;
  }
  return false;
}

TargetKind Target::kind() const {
  if (has_feature("cuda")) return TargetKind::cuda;
  if (has_feature("opencl")) return TargetKind::opencl;
  return TargetKind::cpu;
}

std::string to_string(CacheState s) { return s == CacheState::cold ? "cold" : "warm"; }

CacheState cache_state_from_string(const std::string& name) {
  if (name == "warm") return CacheState::warm;
  if (name == "cold") return CacheState::cold;
  throw Error("unknown cache state '" + name + "' (known: warm, cold)");
}

std::string Target::key() const {
  return halide + "@" + device.hash() + (halide_major != kLegacyHalideMajor ? "/h" + std::to_string(halide_major) : "") +
         (cache == CacheState::cold ? "/cold" : "");
}

nlohmann::json Target::to_json() const {
  return {{"halide", halide}, {"halide_major", halide_major}, {"device", device.to_json()}, {"cache", to_string(cache)}};
}

Target Target::from_json(const nlohmann::json& j) {
  Target t;
  t.halide = j.at("halide").get<std::string>();
  t.halide_major = json_int32_or(j, "halide_major", kLegacyHalideMajor);
  t.device = DeviceFingerprint::from_json(j.at("device"));
  // Manifests and exports written before cache states existed hold warm times.
  t.cache = cache_state_from_string(j.value("cache", "warm"));
  return t;
}

int halide_major_of(const std::string& version) {
  int major = 0;
  for (char ch : version) {
    if (ch < '0' || ch > '9') break;
    major = major * 10 + (ch - '0');
  }
  return major > 0 ? major : kLegacyHalideMajor;
}

}  // namespace nee
