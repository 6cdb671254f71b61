#include "runtime/bundle/shared_library.h"

#include <dlfcn.h>

#include "core/error.h"

namespace nee {

SharedLibrary::SharedLibrary(const std::string& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    throw Error("cannot load kernel library '" + path + "': " + (why ? why : "unknown error"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

void* SharedLibrary::find(const std::string& symbol) const { return dlsym(handle_, symbol.c_str()); }

void* SharedLibrary::require(const std::string& symbol) const {
  void* p = find(symbol);
  if (!p) throw Error("kernel library '" + path_ + "' has no symbol '" + symbol + "'");
  return p;
}

}  // namespace nee
