#include "tuner/measure/reference_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace nee {

namespace fs = std::filesystem;

void write_reference_file(const std::string& path, const Tensor& reference) {
  const std::string temporary = path + ".partial";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot write the reference " + temporary);
  const char* data = static_cast<const char*>(reference.data());
  size_t done = 0;
  while (done < reference.bytes()) {
    const ssize_t n = write(fd, data + done, reference.bytes() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  // On disk before it takes its name, so a crash never leaves a short file under it.
  const bool synced = done == reference.bytes() && fsync(fd) == 0;
  close(fd);
  if (!synced) throw Error("writing the reference " + temporary + " failed");
  fs::rename(temporary, path);
}

Tensor read_reference_file(const std::string& path, const TensorType& type) {
  Tensor reference(type);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error("cannot read the reference '" + path + "': " + ec.message());
  if (size != reference.bytes()) {
    throw Error("the reference '" + path + "' holds " + std::to_string(size) + " bytes, the output " +
                type.to_string() + " " + std::to_string(reference.bytes()));
  }
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(reference.data()), static_cast<std::streamsize>(reference.bytes()));
  if (!in) throw Error("reading the reference '" + path + "' failed");
  return reference;
}

}  // namespace nee
