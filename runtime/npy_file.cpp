#include "runtime/npy_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "core/error.h"

namespace nee {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// The longest header read. numpy's own np.load refuses headers over 10,000 bytes by
// default (max_header_size, for the same reason: the header is parsed text); the arrays
// NEE reads have headers of about 100.
constexpr size_t kMaxHeaderBytes = 64 << 10;

struct NpyType {
  const char* code;  // numpy's kind and size: "f4"
  DType dtype;
};
constexpr NpyType kTypes[] = {{"f4", DType::f32}, {"f8", DType::f64}, {"f2", DType::f16}, {"i1", DType::i8},
                              {"i2", DType::i16}, {"i4", DType::i32}, {"i8", DType::i64}, {"u1", DType::u8},
                              {"u2", DType::u16}, {"u4", DType::u32}, {"u8", DType::u64}, {"b1", DType::boolean}};

// numpy's header: a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
// read strictly: the three keys once each, single- or double-quoted strings without
// escapes, True or False, a tuple of non-negative integers.
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  void read() {
    skip();
    expect('{');
    for (skip(); !at('}'); skip()) {
      const std::string key = string();
      skip();
      expect(':');
      skip();
      if (key == "descr" && !descr) {
        descr = string();
      } else if (key == "fortran_order" && !fortran_order) {
        fortran_order = boolean();
      } else if (key == "shape" && !shape) {
        shape = tuple();
      } else {
        const bool known = key == "descr" || key == "fortran_order" || key == "shape";
        fail(fmt::format("key '{}' {}", key, known ? "given twice" : "is not one of numpy's"));
      }
      skip();
      if (!at('}')) expect(',');
    }
    ++pos_;
    skip();
    if (pos_ != text_.size()) fail("text after the header's closing brace");
    if (!descr || !fortran_order || !shape) fail("it lacks one of 'descr', 'fortran_order' and 'shape'");
  }

  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(fmt::format("{}: not a .npy header numpy writes ({}, at byte {} of the header)", what_, why, pos_));
  }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  void expect(char c) {
    if (!at(c)) fail(fmt::format("'{}' expected", c));
    ++pos_;
  }
  std::string string() {
    if (!at('\'') && !at('"')) fail("a quoted string expected");
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("a string without its closing quote");
    std::string s(text_.substr(pos_, end - pos_));
    if (s.find('\\') != std::string::npos) fail("an escape in a string");
    pos_ = end + 1;
    return s;
  }
  bool boolean() {
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("True or False expected");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    for (skip(); !at(')'); skip()) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') fail("a dimension expected");
      int64_t v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (v > (INT64_MAX - 9) / 10) fail("a dimension past 64 bits");
        v = v * 10 + (text_[pos_++] - '0');
      }
      dims.push_back(v);
      skip();
      if (at(')')) break;
      expect(',');
    }
    expect(')');
    // numpy writes one dimension as "(3,)"; "(3)" is an integer in Python, not a tuple.
    return dims;
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

DType dtype_of_descr(const std::string& descr, const std::string& what) {
  const std::string hint = "save it with numpy's astype() to a little-endian numeric type, e.g. x.astype('<f4')";
  if (descr.size() == 3) {
    for (const NpyType& t : kTypes) {
      if (descr.compare(1, 2, t.code) != 0) continue;
      // Byte order means nothing to a one-byte type; numpy writes '|' for it.
      const char order = descr[0];
      if (order == '<' || order == '=' || (dtype_size(t.dtype) == 1 && (order == '|' || order == '>'))) return t.dtype;
      if (order == '>') throw Error(fmt::format("{}: a big-endian array ('{}'); {}", what, descr, hint));
    }
  }
  throw Error(fmt::format("{}: an array of numpy type '{}', which NEE does not read; {}", what, descr, hint));
}

uint32_t little_endian(std::string_view bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

std::string descr_of(DType dtype) {
  for (const NpyType& t : kTypes) {
    if (t.dtype == dtype) return (dtype_size(dtype) == 1 ? "|" : "<") + std::string(t.code);
  }
  throw Error(fmt::format("a {} tensor has no .npy type (numpy has none of its kind)", to_string(dtype)));
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& what, int64_t max_bytes) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
    throw Error(fmt::format("{}: not a .npy file (it does not start with numpy's \\x93NUMPY)", what));
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) {
    throw Error(fmt::format("{}: .npy format version {}.{}, which NEE does not read (1.0 to 3.0)", what, major,
                            static_cast<uint8_t>(bytes[7])));
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) throw Error(fmt::format("{}: cut short inside the .npy preamble", what));
  const size_t header_length = little_endian(bytes.substr(8, length_bytes));
  const size_t data_start = 8 + length_bytes + header_length;
  if (header_length > kMaxHeaderBytes) {
    throw Error(fmt::format("{}: a .npy header of {} bytes, over the {} NEE reads", what, header_length,
                            kMaxHeaderBytes));
  }
  if (header_length > bytes.size() - 8 - length_bytes) {
    throw Error(fmt::format("{}: cut short: the header says it takes {} bytes, {} follow", what, header_length,
                            bytes.size() - 8 - length_bytes));
  }
  HeaderReader header(bytes.substr(8 + length_bytes, header_length), what);
  header.read();
  if (*header.fortran_order) {
    throw Error(fmt::format("{}: a Fortran-ordered array; save np.ascontiguousarray(x) instead", what));
  }
  const TensorType type{dtype_of_descr(*header.descr, what), *header.shape};
  const int64_t data_bytes = checked_bytes(type, what, max_bytes);
  const size_t carried = bytes.size() - data_start;
  if (static_cast<size_t>(data_bytes) != carried) {
    const bool short_file = carried < static_cast<size_t>(data_bytes);
    throw Error(fmt::format("{}: a {} array is {} bytes, but {} bytes follow the header ({})", what,
                            type.to_string(), data_bytes, carried,
                            short_file ? "the file was cut short" : "bytes after the array"));
  }
  Tensor tensor(type);
  if (data_bytes > 0) std::memcpy(tensor.data(), bytes.data() + data_start, static_cast<size_t>(data_bytes));
  if (type.dtype == DType::boolean) {
    for (int64_t i = 0; i < tensor.elements(); ++i) {
      if (tensor.data_as<uint8_t>()[i] > 1) {
        throw Error(fmt::format("{}: a bool array whose element {} is {}, neither 0 nor 1", what, i,
                                tensor.data_as<uint8_t>()[i]));
      }
    }
  }
  return tensor;
}

Tensor read_npy(const std::string& path, int64_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(fmt::format("'{}' is not a regular .npy file", path));
  const uintmax_t size = std::filesystem::file_size(path, ec);
  // The data may be no larger than max_bytes, the header no larger than kMaxHeaderBytes.
  if (ec || size > static_cast<uintmax_t>(max_bytes) + kMaxHeaderBytes + 12) {
    throw Error(fmt::format("'{}' is larger than a .npy file of at most {} of data can be", path,
                            format_bytes(max_bytes)));
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) throw Error(fmt::format("cannot read '{}'", path));
  return parse_npy(bytes, fmt::format("'{}'", path), max_bytes);
}

std::string npy_bytes(const Tensor& tensor) {
  // Python's tuple: "()", "(3,)", "(2, 3)".
  const std::vector<int64_t>& dims = tensor.shape();
  const std::string shape =
      dims.size() == 1 ? fmt::format("({},)", dims[0]) : fmt::format("({})", fmt::join(dims, ", "));
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_of(tensor.dtype()), shape);
  // As numpy pads: the data starts at a multiple of 64 bytes, the header ends in '\n'.
  const bool v2 = header.size() + 64 + 10 > 65535;  // with its padding and line end
  const size_t preamble = v2 ? 12 : 10;
  header.append(63 - (preamble + header.size()) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.data()), tensor.bytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  const std::string bytes = npy_bytes(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush()) {
    throw Error(fmt::format("cannot write .npy file '{}'", path));
  }
}

}  // namespace nee
