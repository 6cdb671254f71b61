#include "core/isa_level.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include <Halide.h>

#include "core/error.h"

namespace nee {
namespace {

// Sets NEE_MAX_ISA for one scope and restores what was there.
class IsaCap {
 public:
  explicit IsaCap(const char* level) {
    if (const char* was = std::getenv(kMaxIsaVariable)) previous_ = was;
    setenv(kMaxIsaVariable, level, 1);
  }
  ~IsaCap() {
    if (previous_.empty()) {
      unsetenv(kMaxIsaVariable);
    } else {
      setenv(kMaxIsaVariable, previous_.c_str(), 1);
    }
  }

 private:
  std::string previous_;
};

// Records and bundles are keyed by these strings, so each must be Halide's own spelling
// of the target (the same features in its order), as get_host_target() wrote it before.
TEST(IsaLevel, TargetsAreHalidesCanonicalStrings) {
  for (const IsaLevel& l : isa_levels()) {
    ASSERT_TRUE(Halide::Target::validate_target_string(l.halide)) << l.halide;
    EXPECT_EQ(Halide::Target(l.halide).to_string(), l.halide);
    EXPECT_EQ(l.halide.rfind(l.arch + "-linux", 0), 0u) << l.halide;
    EXPECT_FALSE(l.cpu_flags.empty()) << l.name;
  }
}

TEST(IsaLevel, EachLevelNeedsWhatTheOneBelowNeeds) {
  const std::vector<IsaLevel>& all = isa_levels();
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i].arch != all[i - 1].arch) continue;
    for (const std::string& flag : all[i - 1].cpu_flags) {
      EXPECT_NE(std::find(all[i].cpu_flags.begin(), all[i].cpu_flags.end(), flag), all[i].cpu_flags.end())
          << all[i].name << " lacks " << flag;
    }
  }
}

TEST(IsaLevel, TargetStringsMapToTheirHighestLevel) {
  // Halide 14's reading of an AMD Zen 4 (halide/Halide#7834), as the records of
  // earlier sessions have it: the features are all there, so it is that level.
  EXPECT_EQ(isa_level_of_target("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-"
                                "avx512_skylake-f16c-fma-sse41")
                ->name,
            "avx512_sapphirerapids");
  // Halide 21's reading of the same machine, processor tuning included.
  EXPECT_EQ(isa_level_of_target("x86-64-linux-tune_znver4-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-"
                                "avx512_zen4-f16c-fma-sse41")
                ->name,
            "avx512_zen4");
  EXPECT_EQ(isa_level_of_target("x86-64-linux-avx-avx2-f16c-fma-sse41")->name, "avx2");
  EXPECT_EQ(isa_level_of_target("x86-64-linux-avx-avx2-f16c-fma-sse41-opencl")->name, "avx2");
  EXPECT_EQ(isa_level_of_target("x86-64-linux-avx-avx2-f16c-sse41")->name, "sse41");  // no fma
  EXPECT_EQ(isa_level_of_target("arm-64-linux-arm_dot_prod")->name, "arm64_dotprod");
  EXPECT_EQ(isa_level_of_target("x86-64-linux"), nullptr);
  EXPECT_EQ(isa_level_of_target("arm-32-linux"), nullptr);
}

TEST(IsaLevel, UnknownNamesAreRefusedWithTheKnownOnes) {
  try {
    isa_level_named("avx1024");
    ADD_FAILURE() << "an unknown level was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown ISA level 'avx1024' (known: sse41, avx2"), std::string::npos)
        << e.what();
  }
}

// Every machine the project runs on is x86-64 with SSE4.1 at least; the host's levels are
// ascending, each one's flags reported by the CPU, and the host level is the last.
// --target names a level by its name or its whole Halide string, nothing in between.
TEST(IsaLevel, TargetTextNamesALevelByNameOrHalideString) {
  EXPECT_EQ(isa_level_spelled("arm-64-linux"), &isa_level_named("arm64"));
  EXPECT_EQ(isa_level_spelled("arm-64-linux-arm_dot_prod"), &isa_level_named("arm64_dotprod"));
  EXPECT_EQ(isa_level_spelled("avx2"), &isa_level_named("avx2"));
  EXPECT_EQ(isa_level_spelled("x86-64-linux-avx-avx2-f16c-fma-sse41"), &isa_level_named("avx2"));
  EXPECT_EQ(isa_level_spelled("x86-64-linux-avx2"), nullptr);
  EXPECT_EQ(isa_level_spelled("cpu"), nullptr);
}

// A bundle for a level holds its architecture's levels up to it, and no other's.
TEST(IsaLevel, LevelsUpToStayWithinTheArchitecture) {
  std::vector<std::string> names;
  for (const IsaLevel* l : isa_levels_up_to(isa_level_named("arm64_dotprod"))) names.push_back(l->name);
  EXPECT_EQ(names, (std::vector<std::string>{"arm64", "arm64_dotprod"}));
  names.clear();
  for (const IsaLevel* l : isa_levels_up_to(isa_level_named("avx2"))) names.push_back(l->name);
  EXPECT_EQ(names, (std::vector<std::string>{"sse41", "avx2"}));
  EXPECT_EQ(isa_levels_up_to(isa_level_named("arm64")).size(), 1u);
}

// The architecture of a program file comes from its ELF header: this test program's is
// this machine's, and a text file has none.
TEST(IsaLevel, ElfArchReadsTheHeader) {
  EXPECT_EQ(elf_arch("/proc/self/exe"), host_arch());
  const std::string text = ::testing::TempDir() + "/not_elf.txt";
  FILE* f = std::fopen(text.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("\x7f" "ELF is not enough: this is text that starts like it and goes on", f);
  std::fclose(f);
  EXPECT_EQ(elf_arch(text), "");
  EXPECT_EQ(elf_arch(text + ".missing"), "");
}

TEST(IsaLevel, HostRunsEveryFlagOfItsLevels) {
  const std::vector<const IsaLevel*> levels = host_isa_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front()->name, "sse41");
  for (const IsaLevel* l : levels) {
    EXPECT_EQ(l->arch, host_arch());
    EXPECT_TRUE(missing_cpu_flags(*l).empty()) << l->name;
  }
  EXPECT_EQ(&host_isa_level(), levels.back());
  EXPECT_FALSE(missing_cpu_flags(isa_level_named("arm64")).empty());
}

TEST(IsaLevel, CapLimitsTheHostLevels) {
  const std::vector<const IsaLevel*> uncapped = host_isa_levels();
  {
    const IsaCap cap("sse41");
    ASSERT_EQ(host_isa_levels().size(), 1u);
    EXPECT_EQ(host_isa_level().name, "sse41");
  }
  {
    const IsaCap cap("avx512_sapphirerapids");  // the top x86 level caps nothing
    EXPECT_EQ(host_isa_levels(), uncapped);
  }
  {
    const IsaCap cap("avx1024");
    EXPECT_THROW(host_isa_levels(), Error);
  }
  {
    const IsaCap cap("arm64");
    try {
      host_isa_levels();
      ADD_FAILURE() << "a cap for another architecture was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("NEE_MAX_ISA=arm64 names a level for arm-64"), std::string::npos)
          << e.what();
    }
  }
  // A cap given by the caller applies with the variable's; the lower one wins.
  ASSERT_EQ(host_isa_levels("sse41").size(), 1u);
  {
    const IsaCap cap("sse41");
    EXPECT_EQ(host_isa_levels("avx512_sapphirerapids").size(), 1u);
  }
  EXPECT_THROW(host_isa_levels("arm64"), Error);
}

// The message that require_cpu_runs throws, or empty when it does not.
std::string refusal(const std::string& halide_target) {
  try {
    require_cpu_runs(halide_target, "the batch");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(IsaLevel, CodeForALevelTheCpuLacksIsRefusedByName) {
  EXPECT_EQ(refusal(host_isa_level().halide), "");
  EXPECT_EQ(refusal(host_isa_level().halide + "-opencl"), "");
  EXPECT_NE(refusal("arm-64-linux").find("the batch was compiled for arm64 (arm-64-linux); this CPU (x86-64) runs sse41"),
            std::string::npos)
      << refusal("arm-64-linux");
  EXPECT_NE(refusal("arm-64-linux").find("lacks asimd"), std::string::npos);
  EXPECT_NE(refusal("x86-64-linux").find("at none of NEE's ISA levels"), std::string::npos);
  const IsaCap cap("sse41");
  EXPECT_NE(refusal(isa_level_named("avx2").halide).find("runs sse41 (capped by NEE_MAX_ISA)"), std::string::npos)
      << refusal(isa_level_named("avx2").halide);
}

}  // namespace
}  // namespace nee
