#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace nee::tuner_test {

// A fresh folder under the test temp dir, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "tuner") {
    std::string pattern = ::testing::TempDir() + "nee-" + tag + "-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

  // Writes an executable shell script and returns its path.
  std::string script(const std::string& name, const std::string& body) const {
    const std::string p = file(name);
    {
      std::ofstream out(p);
      out << "#!/bin/sh\n" << body << "\n";
    }
    std::filesystem::permissions(p, std::filesystem::perms::owner_all);
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace nee::tuner_test
