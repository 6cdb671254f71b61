#include "runtime/bundle/bundle_folder.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

namespace {

// Closes a descriptor when it goes out of scope.
class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  ~OpenFile() {
    if (fd_ >= 0) close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "of an unknown kind";
}

void require_regular(const struct stat& st, const std::string& path, const std::string& what) {
  if (!S_ISREG(st.st_mode)) {
    throw Error(
        fmt::format("{} '{}' is {}, not a regular file: refused without reading it", what, path, kind_of(st.st_mode)));
  }
}

// Reads an open file whole; it must be a regular file of at most `max_bytes`, also while
// it is read (a file that grows past the limit is refused).
std::string read_open_file(int fd, const std::string& path, uint64_t max_bytes, const std::string& what) {
  struct stat st;
  if (fstat(fd, &st) != 0) throw Error(fmt::format("cannot inspect {} '{}': {}", what, path, std::strerror(errno)));
  require_regular(st, path, what);
  const auto too_big = [&](uint64_t size) {
    return Error(fmt::format("{} '{}' is {} bytes, over the limit of {} bytes", what, path, size, max_bytes));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_big(st.st_size);
  std::string bytes;
  bytes.reserve(st.st_size);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
    if (n == 0) return bytes;
    bytes.append(buffer, n);
    if (bytes.size() > max_bytes) throw too_big(bytes.size());
  }
}

}  // namespace

BundleFolder::BundleFolder(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    throw Error(fmt::format("'{}' is not a NEE bundle: {}", path,
                            error == ENOENT    ? "no such folder"
                            : error == ENOTDIR ? "not a folder"
                                               : std::strerror(error)));
  }
}

BundleFolder::~BundleFolder() { close(fd_); }

int BundleFolder::open_entry(const std::string& name, const std::string& what) const {
  const std::string path = path_ + "/" + name;
  if (name.empty() || name == "." || name == ".." || name.find_first_of(std::string("/\0", 2)) != std::string::npos) {
    throw Error(fmt::format("{} '{}' of bundle '{}' is not a plain file name inside the folder", what, name, path_));
  }
  // Inspected before it is opened: opening a device can act (a tape rewinds, a watchdog
  // arms), and opening a FIFO waits for a writer.
  struct stat st;
  if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return -1;
    throw Error(fmt::format("cannot inspect {} '{}': {}", what, path, std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    const ssize_t n = readlinkat(fd_, name.c_str(), target, sizeof target - 1);
    throw Error(
        fmt::format("{} '{}' is a symbolic link (to '{}'); a bundle's files must be regular files inside "
                    "its folder",
                    what, path, n < 0 ? "unreadable" : std::string(target, n)));
  }
  require_regular(st, path, what);
  // O_NOFOLLOW and O_NONBLOCK again, for a file swapped since it was inspected.
  const int fd = openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw Error(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  return fd;
}

std::optional<std::string> BundleFolder::read(const std::string& name, uint64_t max_bytes,
                                              const std::string& what) const {
  const OpenFile file(open_entry(name, what));
  if (file.fd() < 0) return std::nullopt;
  return read_open_file(file.fd(), path_ + "/" + name, max_bytes, what);
}

std::optional<MappedBytes> BundleFolder::map(const std::string& name, const std::string& what) const {
  const OpenFile file(open_entry(name, what));
  if (file.fd() < 0) return std::nullopt;
  const std::string path = path_ + "/" + name;
  struct stat st;
  if (fstat(file.fd(), &st) != 0) throw Error(fmt::format("cannot inspect {} '{}': {}", what, path, std::strerror(errno)));
  require_regular(st, path, what);
  MappedBytes mapped;
  mapped.size = static_cast<size_t>(st.st_size);
  mapped.identity = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), st.st_size,
                     st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
                     st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec};
  if (mapped.size == 0) {
    mapped.data = std::shared_ptr<uint8_t>(new uint8_t[1](), std::default_delete<uint8_t[]>());
    return mapped;
  }
  void* at = mmap(nullptr, mapped.size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (at == MAP_FAILED) throw Error(fmt::format("cannot map {} '{}': {}", what, path, std::strerror(errno)));
  const size_t size = mapped.size;
  mapped.data = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(at), [size](uint8_t* p) { munmap(p, size); });
  return mapped;
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw Error(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  require_regular(st, path, what);
  const OpenFile file(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (file.fd() < 0) throw Error(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  return read_open_file(file.fd(), path, max_bytes, what);
}

}  // namespace nee
