#include "importer/onnx_constants.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

namespace {

// A tensor stored outside the model: `location` (relative to the model's folder and
// inside it, a regular file), `offset` and `length` (default: to the end of the file).
// The bytes are memory-mapped, not read: the tensor views the mapping, so a model past
// protobuf's 2 GB costs page cache rather than a copy. The mapping is private
// (copy-on-write), so a pass that writes a constant in place gets its own pages. Data at
// an offset that is not a multiple of the element size is copied instead.
Tensor read_external_data(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                          const std::string& what, int64_t max_bytes) {
  namespace fs = std::filesystem;
  if (!folder) throw Error(what + " stores its data in an external file; import the model from its file");
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoull(entry.value());
      if (entry.key() == "length") length = std::stoull(entry.value());
    } catch (const std::exception&) {
      throw Error(fmt::format("{} has external data {} '{}', which is not a byte count", what, entry.key(),
                              entry.value()));
    }
  }
  if (location.empty()) throw Error(what + " stores its data externally but names no location");
  const fs::path relative(location);
  bool escapes = relative.is_absolute() || relative.has_root_name() || relative.has_root_directory();
  for (const fs::path& part : relative) escapes = escapes || part == "..";
  const fs::path file = *folder / relative;
  std::error_code ec;
  const fs::path real_folder = fs::weakly_canonical(*folder, ec), real_file = fs::weakly_canonical(file, ec);
  const auto mismatch = std::mismatch(real_folder.begin(), real_folder.end(), real_file.begin(), real_file.end());
  escapes = escapes || mismatch.first != real_folder.end();
  if (escapes) {
    throw Error(fmt::format("{} has external data location '{}', which leaves the model's folder", what, location));
  }
  if (!fs::is_regular_file(real_file, ec)) {
    throw Error(fmt::format("{}: external data file '{}' is missing or not a regular file", what, file.string()));
  }
  const TensorType type = tensor_proto_type(proto, what);
  const bool packed = holds_4bit_integers(proto);  // two elements a byte in the file
  const uint64_t bytes = packed ? static_cast<uint64_t>((checked_bytes(type, what, max_bytes) + 1) / 2)
                                : static_cast<uint64_t>(checked_bytes(type, what, max_bytes));
  const uint64_t size = fs::file_size(real_file, ec), begin = offset.value_or(0);
  if (ec || begin > size || (length && *length > size - begin)) {
    throw Error(fmt::format("{}: external data file '{}' has {} bytes, fewer than offset {} + length {}", what,
                            file.string(), size, begin, length.value_or(0)));
  }
  const uint64_t available = length.value_or(size - begin);
  if (available != bytes) {
    throw Error(fmt::format("{} declares shape {} ({} bytes) but its external data holds {} bytes", what,
                            type.to_string(), bytes, available));
  }
  if (bytes == 0) return Tensor(type);
  const int fd = ::open(real_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open external data file '{}'", what, file.string()));
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t map_begin = begin / page * page, map_bytes = begin - map_begin + bytes;
  void* mapped = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(map_begin));
  ::close(fd);
  if (mapped == MAP_FAILED) throw Error(fmt::format("{}: cannot map external data file '{}'", what, file.string()));
  std::shared_ptr<uint8_t> mapping(static_cast<uint8_t*>(mapped),
                                   [map_bytes](uint8_t* p) { ::munmap(p, map_bytes); });
  if (packed) return unpack_4bit_integers(mapping.get() + (begin - map_begin), type);
  const Tensor view(type, mapping, begin - map_begin);
  return begin % dtype_size(type.dtype) == 0 ? view : view.clone();
}

}  // namespace

Tensor load_tensor(const onnx::TensorProto& proto, const std::optional<std::filesystem::path>& folder,
                   const std::string& what, int64_t max_bytes) {
  if (proto.data_location() != onnx::TensorProto::EXTERNAL) return tensor_from_proto(proto, what, max_bytes);
  return read_external_data(proto, folder, what, max_bytes);
}

Tensor constant_node_value(const onnx::NodeProto& proto, const std::optional<std::filesystem::path>& folder,
                           const std::string& what, ByteBudget& weights, int64_t max_bytes) {
  if (proto.attribute_size() != 1) throw Error(what + " must have exactly one value attribute");
  const onnx::AttributeProto& attr = proto.attribute(0);
  if (attr.name() == "value") {
    weights.reserve(checked_bytes(tensor_proto_type(attr.t(), what), what, max_bytes), what);
    return load_tensor(attr.t(), folder, what, max_bytes);
  }
  Tensor t;
  if (attr.name() == "value_float") {
    t = Tensor(DType::f32, {});
    *t.data_as<float>() = attr.f();
  } else if (attr.name() == "value_int") {
    t = Tensor(DType::i64, {});
    *t.data_as<int64_t>() = attr.i();
  } else if (attr.name() == "value_floats") {
    t = Tensor(DType::f32, {attr.floats_size()});
    std::copy(attr.floats().begin(), attr.floats().end(), t.data_as<float>());
  } else if (attr.name() == "value_ints") {
    t = Tensor(DType::i64, {attr.ints_size()});
    std::copy(attr.ints().begin(), attr.ints().end(), t.data_as<int64_t>());
  } else {
    throw Error(fmt::format("{} uses attribute '{}', which NEE does not support", what, attr.name()));
  }
  // These attributes hold their elements in the model already: the copy costs no more
  // than the model's own bytes, and is counted once made.
  weights.reserve(static_cast<int64_t>(t.bytes()), what);
  return t;
}

}  // namespace nee
