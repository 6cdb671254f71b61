#include "tuner/compile/object_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/content_hash.h"
#include "core/version.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {

namespace fs = std::filesystem;

namespace {

// The bytes of the running program name its schedules and kernels; read once (`sha256sum`
// of nee-tune's 7.2 MB took 20-30 ms here).
const std::string& program_identity() {
  static const std::string identity = sha256_file("/proc/self/exe");
  return identity;
}

}  // namespace

ObjectCache::ObjectCache(std::string dir) : dir_(std::move(dir)) {
  if (on()) fs::create_directories(dir_);
}

std::string ObjectCache::path_for(const std::string& what) const {
  const nlohmann::json key = {
      {"program", program_identity()}, {"nee", kVersion}, {"halide", halide_version()}, {"what", what}};
  return (fs::path(dir_) / (sha256_hex(key.dump()) + ".o")).string();
}

std::string ObjectCache::kernel_path(const Target& target, const Workload& workload, const ScheduleConfig& config,
                                     const std::string& symbol) const {
  const nlohmann::json what = {
      {"target", target.halide}, {"workload", workload.key()}, {"schedule", config.to_json()}, {"symbol", symbol}};
  return path_for(what.dump());
}

std::string ObjectCache::runtime_path(const Target& target) const {
  return path_for(nlohmann::json{{"runtime", target.halide}}.dump());
}

bool ObjectCache::take(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return false;
  fs::last_write_time(path, fs::file_time_type::clock::now(), error);
  return true;
}

void ObjectCache::store(const std::string& path, const std::function<void(const std::string&)>& compile) {
  const std::string temporary = path + ".part" + std::to_string(getpid());
  try {
    compile(temporary);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  fs::rename(temporary, path);
}

void ObjectCache::prune(uint64_t max_bytes) const {
  if (!on()) return;
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, error)) {
    if (!e.is_regular_file(error)) continue;
    entries.push_back({e.path(), e.last_write_time(error), e.file_size(error)});
    total += entries.back().bytes;
  }
  if (total <= max_bytes) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (fs::remove(e.path, error)) total -= e.bytes;
  }
}

std::string default_object_cache_dir() {
  if (const char* dir = std::getenv("NEE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nee/objects";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.cache/nee/objects";
}

}  // namespace nee
