#include "core/synced_file.h"

#include <fcntl.h>
#include <unistd.h>

#include "core/error.h"

namespace nee {

void write_synced(const std::string& path, std::string_view bytes, bool append) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) throw Error("cannot write " + path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool synced = done == bytes.size() && fsync(fd) == 0;
  close(fd);
  if (!synced) throw Error("writing " + path + " failed");
}

}  // namespace nee
