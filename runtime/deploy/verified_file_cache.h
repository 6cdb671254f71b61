#pragma once
#include <string>

#include "runtime/bundle/bundle_folder.h"

namespace nee {

// Files whose sha256 matched what a manifest says, remembered in a folder so that a later
// load of the same unchanged file (same FileIdentity) skips hashing it: a deploy
// artifact's weights took 62 of a ResNet-50 load's 74 ms to hash on a 2-core EPYC. One
// small file per (file, sha256), written atomically. Best effort: a folder that cannot be
// written only means hashing again next time.
class VerifiedFileCache {
 public:
  // "" remembers nothing and vouches for nothing.
  explicit VerifiedFileCache(std::string dir) : dir_(std::move(dir)) {}
  // $NEE_VERIFIED_CACHE, else $XDG_CACHE_HOME/nee/verified, else $HOME/.cache/nee/verified;
  // "" where none of them is set.
  static std::string default_dir();

  // Whether `file` was remembered with this sha256 and has not changed since.
  bool vouches(const FileIdentity& file, const std::string& sha256) const;
  // Remembers a file whose bytes were hashed to `sha256`, unless it changed less than
  // kSettleNs ago.
  void remember(const FileIdentity& file, const std::string& sha256) const;
  static constexpr int64_t kSettleNs = 50'000'000;

 private:
  std::string entry_path(const FileIdentity& file, const std::string& sha256) const;
  static std::string entry_text(const FileIdentity& file, const std::string& sha256);
  std::string dir_;
};

}  // namespace nee
