#include "runtime/bundle/shared_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "runtime/bundle/elf_image_check.h"

namespace nee {

static std::string dl_error() {
  const char* why = dlerror();
  return why ? why : "unknown error";
}

SharedLibrary::SharedLibrary(const std::string& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw Error("cannot load kernel library '" + path + "': " + dl_error());
}

SharedLibrary::SharedLibrary(const std::string& name, const std::string& image) : path_(name) {
  check_elf_shared_object(image, "kernel library '" + name + "'");
  const auto fail = [&](const std::string& step) {
    const std::string why = std::strerror(errno);
    if (image_fd_ >= 0) close(image_fd_);
    return Error(fmt::format("cannot load kernel library '{}': {} failed: {}", name, step, why));
  };
  image_fd_ = memfd_create(("nee:" + name.substr(name.find_last_of('/') + 1)).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (image_fd_ < 0) throw fail("memfd_create");
  for (size_t written = 0; written < image.size();) {
    const ssize_t n = write(image_fd_, image.data() + written, image.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail("writing its memory file");
    written += n;
  }
  if (fcntl(image_fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    throw fail("sealing its memory file");
  }
  // ld.so returns an already loaded library of the same name without opening the file:
  // one loaded from a descriptor since closed that dlclose() left mapped (a library
  // with unique symbols stays) would be taken for this one. The descriptor stays open
  // while the library is loaded, so only such a left-over can hold its name.
  std::string path = fmt::format("/proc/self/fd/{}", image_fd_);
  while (void* other = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    dlclose(other);
    const int fd = fcntl(image_fd_, F_DUPFD_CLOEXEC, image_fd_ + 1);
    if (fd < 0) throw fail("renumbering its memory file");
    close(image_fd_);
    image_fd_ = fd;
    path = fmt::format("/proc/self/fd/{}", image_fd_);
  }
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const std::string why = dl_error();
    close(image_fd_);
    throw Error(fmt::format("cannot load kernel library '{}': {}", name, why));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
  if (image_fd_ >= 0) close(image_fd_);
}

void* SharedLibrary::find(const std::string& symbol) const { return dlsym(handle_, symbol.c_str()); }

void* SharedLibrary::require(const std::string& symbol) const {
  void* p = find(symbol);
  if (!p) throw Error("kernel library '" + path_ + "' has no symbol '" + symbol + "'");
  return p;
}

}  // namespace nee
