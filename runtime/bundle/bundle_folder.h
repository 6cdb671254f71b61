#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace nee {

// What tells a file's contents apart without reading them: its inode and the times a
// write changes. Every write sets the change time (st_ctime) to the current time, which no
// unprivileged process can set back, so the same identity later means the same bytes
// (short of root or a clock set back; docs/TRUST.md).
struct FileIdentity {
  uint64_t device = 0, inode = 0;
  int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
};

// A file's bytes mapped read-only; the pointer's owner unmaps them.
struct MappedBytes {
  std::shared_ptr<uint8_t> data;
  size_t size = 0;
  FileIdentity identity;  // of the file mapped, taken from its open descriptor
};

// A bundle folder, opened once: every file of the bundle is read through it, by a plain
// name inside the folder, without following a symbolic link (a link is refused, wherever
// it points), and must be a regular file: a FIFO, device, socket or folder is refused by
// name when opened, before a byte is read (a FIFO is opened without waiting for a
// writer). A file is read whole, up to a limit that is given per kind of file.
class BundleFolder {
 public:
  // nee::Error naming the path when it is not an existing folder.
  explicit BundleFolder(const std::string& path);
  ~BundleFolder();
  BundleFolder(const BundleFolder&) = delete;
  BundleFolder& operator=(const BundleFolder&) = delete;

  // The bytes of `name`; nullopt when there is no such entry. nee::Error naming the file
  // and the problem for a name that is not a plain file name, a link, a file of another
  // kind, or one over `max_bytes` (`what` names the kind of file in that message).
  std::optional<std::string> read(const std::string& name, uint64_t max_bytes, const std::string& what) const;
  // `name` mapped read-only, for large files read in place (a deploy artifact's weights):
  // the same refusals as read(), no size limit; nullopt when there is no such entry. The
  // mapping is private: a later change to the file may or may not show through it, so
  // what matters is checked after mapping, on the mapped bytes.
  std::optional<MappedBytes> map(const std::string& name, const std::string& what) const;
  const std::string& path() const { return path_; }

 private:
  // The descriptor of entry `name`, opened as read() describes (the caller closes it);
  // -1 when there is no such entry.
  int open_entry(const std::string& name, const std::string& what) const;

  std::string path_;
  int fd_ = -1;
};

// A file outside any bundle (a trusted key), read the same way except that a symbolic
// link is followed: it must end at a regular file of at most `max_bytes`.
std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what);

}  // namespace nee
