#pragma once
#include <set>
#include <string>
#include <vector>

namespace nee {

// An instruction-set level a CPU kernel is compiled for: a Halide target string and the
// CPU flags (as /proc/cpuinfo names them) its code may use. NEE derives every CPU compile
// target from these levels instead of Halide's get_host_target(): Halide 14 read an AMD
// Zen 4 (AVX-512 with BF16, no AVX-VNNI) as avx512_sapphirerapids (halide/Halide#7834),
// and code built for that died with SIGILL there; a bundle must name levels other CPUs
// share anyway, not one machine's reading. No Halide in here, so the runtime can
// check a bundle against the CPU without a compiler.
struct IsaLevel {
  std::string name;    // "avx2": what --isa, NEE_MAX_ISA and manifests call it
  std::string arch;    // "x86-64" or "arm-64", the architecture part of the target
  std::string halide;  // the whole target string, features in Halide's canonical order
  // Flags the code needs. Halide's LLVM picks -mcpu from the features (haswell for avx2,
  // skylake-avx512, cannonlake, znver4, sapphirerapids), which may also emit BMI, LZCNT
  // and MOVBE instructions: those flags are required with the vector ones.
  std::vector<std::string> cpu_flags;
};

// Every level NEE compiles for, ascending within each architecture.
const std::vector<IsaLevel>& isa_levels();
// The level of that name; nee::Error listing the known names otherwise.
const IsaLevel& isa_level_named(const std::string& name);
// The level a --target text names: a level's name or its whole Halide target string
// ("avx2", "arm-64-linux"); nullptr for any other text.
const IsaLevel* isa_level_spelled(const std::string& text);
// The levels of `top`'s architecture up to `top`, ascending: what a bundle built for `top`
// holds by default, so that it also runs on that architecture's lesser CPUs.
std::vector<const IsaLevel*> isa_levels_up_to(const IsaLevel& top);
// The highest level whose target a Halide CPU target string includes (its arch and every
// feature); nullptr when it includes none.
const IsaLevel* isa_level_of_target(const std::string& halide_target);

// The architecture this program was compiled for, as a level's `arch` names it.
std::string host_arch();
// The architecture an executable or shared library was built for, as a level's `arch`
// names it, read from its ELF header; empty for a file that is not ELF, or of another
// architecture.
std::string elf_arch(const std::string& path);
// The CPU flags this machine's kernel reports: on x86 the "flags" line of /proc/cpuinfo,
// which lists a vector extension only where the OS saves its registers; on ARM the
// auxiliary vector's hardware capabilities, under /proc/cpuinfo's names.
const std::set<std::string>& host_cpu_flags();
// The flags of `level` this machine lacks, all of them when it is another architecture.
std::vector<std::string> missing_cpu_flags(const IsaLevel& level);

// The environment variable that caps the levels this machine claims, so that one machine
// runs, tunes and tests as a lesser CPU would: NEE_MAX_ISA=avx2.
inline constexpr const char* kMaxIsaVariable = "NEE_MAX_ISA";
// The levels this machine runs, ascending, up to the NEE_MAX_ISA cap when it is set and
// up to `cap` when it names a level (nee::Error for a cap that names no level of this
// architecture).
std::vector<const IsaLevel*> host_isa_levels(const std::string& cap = "");
// The highest of them: the level every CPU kernel is compiled and measured for by
// default. nee::Error when the machine runs none.
const IsaLevel& host_isa_level();
// Throws nee::Error, naming the levels this machine runs and the flags it lacks, unless
// code compiled for a Halide target is at one of them; `what` names that code.
void require_cpu_runs(const std::string& halide_target, const std::string& what);

}  // namespace nee
