#include "tuner/measure/reference_file.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/synced_file.h"

namespace nee {

namespace fs = std::filesystem;

void write_reference_file(const std::string& path, const Tensor& reference) {
  // On disk before it takes its name, so a crash never leaves a short file under it.
  const std::string temporary = path + ".partial";
  write_synced(temporary, std::string_view(static_cast<const char*>(reference.data()), reference.bytes()), false);
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
