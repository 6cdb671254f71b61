#pragma once
#include <string>
#include <vector>

#include "core/isa_level.h"
#include "core/schedule_config.h"
#include "core/target.h"
#include "core/workload.h"

namespace nee {

// The Halide target string for a kind of target on this build host: the host's ISA level
// (core/isa_level.h: the CPU's confirmed features, capped by NEE_MAX_ISA), plus opencl, or cuda with a compute capability: `cuda_capability` (one
// Halide knows, else nee::Error), or 0 for this machine's GPU's
// (halide_cuda_capability), or 8.0 where it has none. A newer driver JIT-compiles the
// PTX of an older capability, so 8.0 runs on Ampere and later, the H200 included.
std::string halide_target_for(TargetKind kind, int cuda_capability = 0);
// A Target for this machine: Halide string plus the host's fingerprint.
Target host_target(TargetKind kind, int cuda_capability = 0);

// Compiles one scheduled kernel into an object file exporting `<symbol>_argv` and
// `<symbol>_metadata`, without the Halide runtime (that is linked once per library).
// A baseline's schedule (tuner/compile/autoscheduler_config.h) is compiled by its autoscheduler.
void compile_kernel_object(const Workload& workload, const Target& target, const ScheduleConfig& config,
                           const std::string& symbol, const std::string& object_path);

// Same, scheduled by one of Halide's autoschedulers (Adams2019, Mullapudi2016) instead
// of a NEE schedule space: the baseline a tuned result must beat. Every family with an
// entry in tuner/compile/autoscheduler_input.cpp has one.
void compile_autoscheduled_object(const Workload& workload, const Target& target,
                                  const std::string& autoscheduler, const std::string& symbol,
                                  const std::string& object_path);

void compile_runtime_object(const Target& target, const std::string& object_path);

// The C compiler that builds code for an architecture (IsaLevel::arch): the system's for
// this machine's, a cross compiler for another (nee::Error naming its Debian package
// when it is missing).
std::string c_compiler_for(const std::string& arch);
// Links objects into a shared library for `arch` with the system C++ compiler, or the
// cross compiler for another architecture.
void link_shared_library(const std::vector<std::string>& objects, const std::string& library_path,
                         const std::string& arch = host_arch());

std::string halide_version();

}  // namespace nee
