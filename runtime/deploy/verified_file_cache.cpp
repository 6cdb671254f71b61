#include "runtime/deploy/verified_file_cache.h"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/content_hash.h"

namespace nee {

namespace fs = std::filesystem;

std::string VerifiedFileCache::default_dir() {
  if (const char* dir = std::getenv("NEE_VERIFIED_CACHE")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nee/verified";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/nee/verified";
  return "";
}

std::string VerifiedFileCache::entry_path(const FileIdentity& file, const std::string& sha256) const {
  return dir_ + "/" + sha256_hex(fmt::format("{}:{}:{}", file.device, file.inode, sha256));
}

std::string VerifiedFileCache::entry_text(const FileIdentity& file, const std::string& sha256) {
  return fmt::format("{} {} {} {} {} {}\n", file.device, file.inode, file.size, file.mtime_ns, file.ctime_ns, sha256);
}

bool VerifiedFileCache::vouches(const FileIdentity& file, const std::string& sha256) const {
  if (dir_.empty()) return false;
  std::ifstream in(entry_path(file, sha256));
  std::stringstream text;
  text << in.rdbuf();
  return in && text.str() == entry_text(file, sha256);
}

void VerifiedFileCache::remember(const FileIdentity& file, const std::string& sha256) const {
  if (dir_.empty()) return;
  // A file changed within the last kSettleNs could change again within the same tick of
  // the kernel's coarse clock (1 to 10 ms), keeping its times: it is hashed again next
  // time instead (git's "racily clean" entries, the same problem).
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const int64_t now_ns = now.tv_sec * 1000000000LL + now.tv_nsec;
  if (now_ns - file.ctime_ns < kSettleNs || now_ns - file.mtime_ns < kSettleNs) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const std::string path = entry_path(file, sha256), temporary = fmt::format("{}.{}.tmp", path, getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << entry_text(file, sha256);
    if (!out.flush()) {
      fs::remove(temporary, ec);
      return;
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) fs::remove(temporary, ec);
}

}  // namespace nee
