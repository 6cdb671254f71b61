#include "core/isa_level.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "core/error.h"

namespace nee {

const std::vector<IsaLevel>& isa_levels() {
  // Halide's -mcpu per feature: penryn (sse41), haswell (avx2), skylake-avx512,
  // cannonlake, znver4, sapphirerapids. Each level's flags are those CPUs' that LLVM may
  // emit without intrinsics (GFNI among them, for byte shifts); AMX, SHA, AES, RDRAND and
  // the like are not.
  static const std::vector<IsaLevel> levels = [] {
    const std::vector<std::string> sse41 = {"ssse3", "sse4_1", "cx16"};
    std::vector<std::string> avx2 = sse41;
    avx2.insert(avx2.end(), {"popcnt", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe"});
    std::vector<std::string> skylake = avx2;
    skylake.insert(skylake.end(), {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"});
    std::vector<std::string> cannonlake = skylake;
    cannonlake.insert(cannonlake.end(), {"avx512ifma", "avx512vbmi"});
    std::vector<std::string> zen4 = cannonlake;
    zen4.insert(zen4.end(), {"avx512_vnni", "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "gfni"});
    std::vector<std::string> sapphirerapids = zen4;
    sapphirerapids.insert(sapphirerapids.end(), {"avx512_fp16", "avx_vnni"});
    return std::vector<IsaLevel>{
        {"sse41", "x86-64", "x86-64-linux-sse41", sse41},
        {"avx2", "x86-64", "x86-64-linux-avx-avx2-f16c-fma-sse41", avx2},
        {"avx512_skylake", "x86-64", "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41", skylake},
        {"avx512_cannonlake", "x86-64",
         "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41", cannonlake},
        // AMD Zen 4 and 5: AVX-512 with BF16 and VNNI, no AVX-VNNI and no FP16.
        {"avx512_zen4", "x86-64",
         "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-f16c-fma-sse41", zen4},
        {"avx512_sapphirerapids", "x86-64",
         "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41",
         sapphirerapids},
        // NEON (Advanced SIMD) is part of every AArch64 CPU; the dot product is optional.
        {"arm64", "arm-64", "arm-64-linux", {"asimd"}},
        {"arm64_dotprod", "arm-64", "arm-64-linux-arm_dot_prod", {"asimd", "asimddp"}},
    };
  }();
  return levels;
}

static std::string level_names() {
  std::vector<std::string> names;
  for (const IsaLevel& l : isa_levels()) names.push_back(l.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

const IsaLevel& isa_level_named(const std::string& name) {
  for (const IsaLevel& l : isa_levels()) {
    if (l.name == name) return l;
  }
  throw Error(fmt::format("unknown ISA level '{}' (known: {})", name, level_names()));
}

const IsaLevel* isa_level_spelled(const std::string& text) {
  for (const IsaLevel& l : isa_levels()) {
    if (l.name == text || l.halide == text) return &l;
  }
  return nullptr;
}

std::vector<const IsaLevel*> isa_levels_up_to(const IsaLevel& top) {
  std::vector<const IsaLevel*> levels;
  for (const IsaLevel& l : isa_levels()) {
    if (l.arch != top.arch) continue;
    levels.push_back(&l);
    if (&l == &top) break;
  }
  return levels;
}

static std::vector<std::string> split_dashes(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, '-')) parts.push_back(part);
  return parts;
}

const IsaLevel* isa_level_of_target(const std::string& halide_target) {
  const std::vector<std::string> target = split_dashes(halide_target);
  const IsaLevel* found = nullptr;
  for (const IsaLevel& l : isa_levels()) {
    const std::vector<std::string> needed = split_dashes(l.halide);
    // The first two parts are the arch and the bits, the third the OS.
    if (target.size() < 3 || target[0] != needed[0] || target[1] != needed[1]) continue;
    bool all = true;
    for (size_t i = 3; i < needed.size(); ++i) {
      all = all && std::find(target.begin() + 3, target.end(), needed[i]) != target.end();
    }
    if (all) found = &l;  // ascending: the last match is the highest
  }
  return found;
}

std::string elf_arch(const std::string& path) {
  // e_ident (16 bytes), e_type (2), then e_machine (2, little-endian on both):
  // EM_X86_64 = 62, EM_AARCH64 = 183.
  unsigned char header[20] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return "";
  if (header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F') return "";
  const int machine = header[18] | header[19] << 8;
  return machine == 62 ? "x86-64" : machine == 183 ? "arm-64" : "";
}

std::string host_arch() {
#if defined(__x86_64__)
  return "x86-64";
#elif defined(__aarch64__)
  return "arm-64";
#else
  return "unknown";
#endif
}

const std::set<std::string>& host_cpu_flags() {
  static const std::set<std::string> flags = [] {
    std::set<std::string> found;
#if defined(__aarch64__)
    // The kernel's hardware capabilities, named as /proc/cpuinfo names them; read from
    // the auxiliary vector, which an emulator (qemu-user) fills for the CPU it emulates,
    // while its /proc/cpuinfo would be the host's.
    const unsigned long hwcap = getauxval(AT_HWCAP);
    if (hwcap & HWCAP_ASIMD) found.insert("asimd");
    if (hwcap & HWCAP_ASIMDDP) found.insert("asimddp");
#else
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      // One CPU's line is enough.
      if (line.rfind("flags", 0) != 0) continue;
      std::stringstream ss(line.substr(line.find(':') + 1));
      std::string flag;
      while (ss >> flag) found.insert(flag);
      break;
    }
#endif
    return found;
  }();
  return flags;
}

std::vector<std::string> missing_cpu_flags(const IsaLevel& level) {
  if (level.arch != host_arch()) return level.cpu_flags;
  std::vector<std::string> missing;
  for (const std::string& flag : level.cpu_flags) {
    if (!host_cpu_flags().count(flag)) missing.push_back(flag);
  }
  return missing;
}

static const IsaLevel* cap_level(const std::string& cap, const std::string& source) {
  if (cap.empty()) return nullptr;
  const IsaLevel* level = &isa_level_named(cap);
  if (level->arch != host_arch()) {
    throw Error(fmt::format("{}{} names a level for {}, but this machine is {}", source, cap, level->arch, host_arch()));
  }
  return level;
}

std::vector<const IsaLevel*> host_isa_levels(const std::string& cap) {
  const char* variable = std::getenv(kMaxIsaVariable);
  const IsaLevel* caps[] = {cap_level(variable ? variable : "", std::string(kMaxIsaVariable) + "="),
                            cap_level(cap, "the cap ")};
  std::vector<const IsaLevel*> runs;
  bool capped = false;
  for (const IsaLevel& l : isa_levels()) {
    if (capped) break;
    if (l.arch == host_arch() && missing_cpu_flags(l).empty()) runs.push_back(&l);
    capped = &l == caps[0] || &l == caps[1];
  }
  return runs;
}

const IsaLevel& host_isa_level() {
  const std::vector<const IsaLevel*> runs = host_isa_levels();
  if (runs.empty()) {
    throw Error(fmt::format("this CPU ({}) runs none of NEE's ISA levels ({})", host_arch(), level_names()));
  }
  return *runs.back();
}

void require_cpu_runs(const std::string& halide_target, const std::string& what) {
  const IsaLevel* level = isa_level_of_target(halide_target);
  if (!level) throw Error(fmt::format("{} was compiled for {}, which is at none of NEE's ISA levels", what, halide_target));
  const std::vector<const IsaLevel*> runs = host_isa_levels();
  if (std::find(runs.begin(), runs.end(), level) != runs.end()) return;
  std::vector<std::string> names;
  for (const IsaLevel* l : runs) names.push_back(l->name);
  const std::vector<std::string> lacks = missing_cpu_flags(*level);
  throw Error(fmt::format("{} was compiled for {} ({}); this CPU ({}) runs {}{}", what, level->name, halide_target,
                          host_arch(), names.empty() ? "none of NEE's levels" : fmt::format("{}", fmt::join(names, ", ")),
                          lacks.empty() ? fmt::format(" (capped by {})", kMaxIsaVariable)
                                        : fmt::format(" and lacks {}", fmt::join(lacks, " "))));
}

}  // namespace nee
