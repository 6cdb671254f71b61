// Runs a fuzz target's LLVMFuzzerTestOneInput on files, in builds without libFuzzer (gcc,
// the tests): `<target> [--all-accepted] PATH...`, where a folder stands for every file
// under it. Each file's name is printed before it runs, so a crash names its input, and
// its outcome after: accepted, or the refusal the target noted (fuzz/refusal.h). With
// --all-accepted a refused file fails the replay (exit 1): seeds must reach the code
// behind the checks. Exits 2 when given nothing to run, so that a replay of a missing
// corpus fails instead of passing empty.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/refusal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  bool all_accepted = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--all-accepted") {
      all_accepted = true;
      continue;
    }
    const fs::path path(argv[i]);
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> found;
      for (const fs::directory_entry& e : fs::recursive_directory_iterator(path)) {
        if (e.is_regular_file()) found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a folder\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files (usage: %s FILE_OR_FOLDER...)\n", argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  size_t total_bytes = 0, refused = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    total_bytes += bytes.size();
    const std::string refusal = nee::fuzz::take_refusal();
    if (refusal.empty()) {
      std::fprintf(stderr, "  accepted\n");
    } else {
      ++refused;
      std::fprintf(stderr, "  refused: %s\n", refusal.c_str());
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "replay: %zu input(s), %zu bytes, %zu refused, in %.2f s\n", files.size(), total_bytes, refused,
               seconds);
  if (all_accepted && refused > 0) {
    std::fprintf(stderr, "replay: --all-accepted, and %zu input(s) were refused\n", refused);
    return 1;
  }
  return 0;
}
