#include "fuzz/scratch_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace nee::fuzz {

namespace {

std::string scratch_path;

}  // namespace

const std::string& write_scratch_file(const std::string& suffix, const uint8_t* data, size_t size) {
  if (scratch_path.empty()) {
    scratch_path =
        (std::filesystem::temp_directory_path() / ("nee_fuzz_" + std::to_string(getpid()) + suffix)).string();
    std::atexit([] { std::remove(scratch_path.c_str()); });
  }
  std::ofstream out(scratch_path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) {
    std::fprintf(stderr, "cannot write the scratch file %s\n", scratch_path.c_str());
    std::abort();
  }
  return scratch_path;
}

}  // namespace nee::fuzz
