#pragma once
#include <string>

namespace nee {

// A dlopen()ed shared library, closed on destruction. Symbols stay private to it
// (RTLD_LOCAL), so several kernel libraries, each with its own Halide runtime, can be
// loaded in one process.
class SharedLibrary {
 public:
  // Loads the library at `path` (a compiled candidate, the tuner's own file).
  explicit SharedLibrary(const std::string& path);
  // Loads the library whose bytes are `image`, after check_elf_shared_object(): they are
  // copied into a sealed memory file (memfd, which nothing can change after) and loaded
  // from it, so what runs is exactly the bytes the caller read and checked, whatever
  // happens to the file they came from. `name` names it in errors.
  SharedLibrary(const std::string& name, const std::string& image);
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
  int image_fd_ = -1;  // the memory file of a library loaded from bytes
};

}  // namespace nee
