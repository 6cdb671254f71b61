#include "bench/engines/kernel_workspace.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee::bench {

namespace fs = std::filesystem;

// Halide's compiler may hang on a schedule; the builder kills a build after this long.
constexpr double kBuildTimeoutSeconds = 600;

KernelWorkspace::KernelWorkspace(int threads) : target_(host_target(TargetKind::cpu)), threads_(threads) {
  std::string pattern = (fs::temp_directory_path() / "nee-bench-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw Error("cannot create a scratch folder under " + fs::temp_directory_path().string());
  dir_ = pattern;
  builder_ = std::make_unique<Builder>(dir_ + "/nee", 1, kBuildTimeoutSeconds);
}

KernelWorkspace::~KernelWorkspace() {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string KernelWorkspace::new_folder(const std::string& prefix) {
  const std::string path = dir_ + "/" + prefix + "-" + std::to_string(next_folder_++);
  fs::create_directories(path);
  return path;
}

}  // namespace nee::bench
