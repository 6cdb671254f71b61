// .npy files: what numpy.save writes (every numeric type NEE shares with numpy, format
// 2.0, a 0-d array) reads back exactly; what NEE writes numpy reads; and damaged or
// unsupported files are refused by name, before any allocation of a declared size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/subprocess.h"
#include "runtime/npy_file.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// What refuses: a nee::Error whose message holds `text`.
auto Refused(const std::string& text) { return ::testing::ThrowsMessage<Error>(HasSubstr(text)); }

class NpyFile : public ::testing::Test {
 protected:
  NpyFile() : dir_(fs::temp_directory_path() / ("nee-npy-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~NpyFile() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  void python(const std::string& program) const {
    const ProcessResult r = run_process({"/usr/bin/python3", "-c", "import numpy as np, os\nos.chdir('" +
                                                                       dir_.string() + "')\n" + program},
                                        120, true);
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  }
  std::string bytes_of(const std::string& name) const {
    std::ifstream in(file(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  fs::path dir_;
};

TEST_F(NpyFile, ReadsWhatNumpyWrites) {
  python(
      "r = np.random.default_rng(3)\n"
      "for t in ['<f4', '<f8', '<f2', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8']:\n"
      "  x = r.uniform(-9, 9, (2, 3, 5)) if t[1] == 'f' else r.integers(0, 100, (2, 3, 5))\n"
      "  np.save(t[1:] + '.npy', x.astype(t))\n"
      "  np.asarray(np.load(t[1:] + '.npy')).tofile(t[1:] + '.raw')\n"
      "np.save('b1.npy', r.integers(0, 2, (7,)).astype(bool))\n"
      "np.save('scalar.npy', np.float32(2.5))\n"
      "np.save('empty.npy', np.zeros((0, 4), np.int64))\n"
      "with open('v2.npy', 'wb') as f:\n"
      "  np.lib.format.write_array(f, np.arange(6, dtype='<i4').reshape(3, 2), version=(2, 0))\n");
  const std::map<std::string, DType> types = {{"f4", DType::f32}, {"f8", DType::f64}, {"f2", DType::f16},
                                              {"i1", DType::i8},  {"i2", DType::i16}, {"i4", DType::i32},
                                              {"i8", DType::i64}, {"u1", DType::u8},  {"u2", DType::u16},
                                              {"u4", DType::u32}, {"u8", DType::u64}};
  for (const auto& [code, dtype] : types) {
    const Tensor t = read_npy(file(code + ".npy"));
    EXPECT_EQ(t.type(), (TensorType{dtype, {2, 3, 5}})) << code;
    const std::string raw = bytes_of(code + ".raw");
    ASSERT_EQ(raw.size(), t.bytes()) << code;
    EXPECT_EQ(std::memcmp(raw.data(), t.data(), t.bytes()), 0) << code;
  }
  const Tensor b = read_npy(file("b1.npy"));
  EXPECT_EQ(b.type(), (TensorType{DType::boolean, {7}}));
  const Tensor scalar = read_npy(file("scalar.npy"));
  EXPECT_EQ(scalar.type(), (TensorType{DType::f32, {}}));
  EXPECT_EQ(scalar.data_as<float>()[0], 2.5f);
  EXPECT_EQ(read_npy(file("empty.npy")).type(), (TensorType{DType::i64, {0, 4}}));
  const Tensor v2 = read_npy(file("v2.npy"));
  EXPECT_EQ(v2.type(), (TensorType{DType::i32, {3, 2}}));
  EXPECT_EQ(v2.data_as<int32_t>()[5], 5);
}

TEST_F(NpyFile, NumpyReadsWhatNeeWrites) {
  for (const auto& [name, type] : {std::pair<std::string, TensorType>{"a", {DType::f32, {2, 3}}},
                                   {"b", {DType::i64, {4}}},
                                   {"c", {DType::boolean, {3, 1, 2}}},
                                   {"d", {DType::f16, {}}}}) {
    const Tensor t = random_tensor(type, 7);
    write_npy(file(name + ".npy"), t);
    const Tensor back = read_npy(file(name + ".npy"));
    ASSERT_EQ(back.type(), t.type()) << name;
    EXPECT_EQ(std::memcmp(back.data(), t.data(), t.bytes()), 0) << name;
    EXPECT_EQ(npy_bytes(t).find('\n') % 64, 63u) << "the data starts at a multiple of 64 bytes";
  }
  python(
      "a = np.load('a.npy'); assert a.dtype == np.float32 and a.shape == (2, 3) and a.flags.c_contiguous\n"
      "assert np.load('b.npy').shape == (4,) and np.load('b.npy').dtype == np.int64\n"
      "assert np.load('c.npy').dtype == bool and np.load('c.npy').shape == (3, 1, 2)\n"
      "assert np.load('d.npy').shape == () and np.load('d.npy').dtype == np.float16\n");
  EXPECT_THAT([] { npy_bytes(Tensor(DType::bf16, {2})); }, Refused("no .npy type"));
}

TEST_F(NpyFile, RefusesWhatItCannotReadByName) {
  python(
      "np.save('big.npy', np.arange(4, dtype='>f4'))\n"
      "np.save('fortran.npy', np.asfortranarray(np.ones((2, 3), np.float32)))\n"
      "np.save('text.npy', np.array(['a', 'b']))\n");
  EXPECT_THAT([&] { read_npy(file("big.npy")); }, Refused("big-endian array ('>f4')"));
  EXPECT_THAT([&] { read_npy(file("fortran.npy")); }, Refused("np.ascontiguousarray"));
  EXPECT_THAT([&] { read_npy(file("text.npy")); }, Refused("numpy type '<U1'"));
  EXPECT_THAT([&] { read_npy(file("missing.npy")); }, Refused("not a regular .npy file"));

  const std::string good = npy_bytes(random_tensor({DType::f32, {2, 3}}, 1));
  // Parsing bytes as a file named x.npy, to be refused.
  const auto parse = [](std::string bytes) { return [bytes] { parse_npy(bytes, "x.npy"); }; };
  EXPECT_THAT(parse(good.substr(0, good.size() - 4)), Refused("the file was cut short"));
  EXPECT_THAT(parse(good + "xx"), Refused("bytes after the array"));
  EXPECT_THAT(parse("PK" + good), Refused("not a .npy file"));
  EXPECT_THAT(parse(good.substr(0, 40)), Refused("cut short: the header says"));
  std::string huge_header = "\x93NUMPY";
  huge_header += std::string("\x02\x00\xa0\x86\x01\x00", 6) + std::string(100000, ' ');
  EXPECT_THAT(parse(huge_header), Refused("a .npy header of 100000 bytes"));
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_THAT(parse(v9), Refused("format version 9.0"));

  // Headers as numpy never writes them, each in a valid preamble.
  const auto with_header = [](const std::string& header, const std::string& data = "") {
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\0';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
  };
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n")),
              Refused("key 'descr' given twice"));
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'shape': (1,), }\n")), Refused("lacks one of"));
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n")),
              Refused("a dimension expected"));
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n")),
              Refused("past 64 bits"));
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n")),
              Refused("not one of numpy's"));
  EXPECT_THAT(parse(with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }\n", "\x01\x02")),
              Refused("neither 0 nor 1"));
  // A declared size is checked against the cap and the bytes carried before anything is
  // allocated: 2^40 floats from a 100-byte file.
  EXPECT_THAT(parse(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }\n")),
              Refused("limit per tensor"));
  EXPECT_THAT([&] { parse_npy(good, "x.npy", 16); }, Refused("limit per tensor"));
}

}  // namespace
}  // namespace nee
