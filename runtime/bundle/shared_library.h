#pragma once
#include <string>

namespace nee {

// A dlopen()ed shared library, closed on destruction. Symbols stay private to it
// (RTLD_LOCAL), so several kernel libraries, each with its own Halide runtime, can be
// loaded in one process.
class SharedLibrary {
 public:
  explicit SharedLibrary(const std::string& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // Null when absent.
  void* find(const std::string& symbol) const;
  // Throws nee::Error naming the library and the symbol when absent.
  void* require(const std::string& symbol) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
};

}  // namespace nee
