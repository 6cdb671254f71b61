// Initializers whose data lives in a file next to the model (TensorProto EXTERNAL),
// memory-mapped.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;
using test::values_of;

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("nee_external_data_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_ / "weights");
    const float values[4] = {1.5f, -2.0f, 3.0f, 4.25f};
    std::ofstream out(folder_ / "weights" / "w.bin", std::ios::binary);
    out.write("PAD!", 4);  // data starts at offset 4
    out.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  void TearDown() override { fs::remove_all(folder_); }

  // A model whose only output is the 2x2 float initializer "w", stored externally.
  std::string write_model(const std::string& location, const std::string& offset, const std::string& length) {
    OnnxModelBuilder m;
    m.output("w");
    onnx::TensorProto& w = m.raw_initializer();
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    w.add_dims(2);
    w.add_dims(2);
    w.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair{"location", location}, std::pair{"offset", offset},
                                     std::pair{"length", length}}) {
      if (value.empty()) continue;
      auto* entry = w.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
    const fs::path path = folder_ / "model.onnx";
    std::ofstream(path, std::ios::binary) << m.bytes();
    return path.string();
  }

  std::string import_error(const std::string& path) {
    try {
      import_onnx(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path folder_;
};

TEST_F(ExternalData, ReadsLocationOffsetAndLength) {
  Graph graph = import_onnx(write_model("weights/w.bin", "4", "16"));
  ASSERT_NE(graph.constant("w"), nullptr);
  EXPECT_EQ(values_of(*graph.constant("w")), (std::vector<float>{1.5f, -2.0f, 3.0f, 4.25f}));
}

TEST_F(ExternalData, LengthDefaultsToTheRestOfTheFile) {
  Graph graph = import_onnx(write_model("weights/w.bin", "4", ""));
  EXPECT_EQ(values_of(*graph.constant("w")), (std::vector<float>{1.5f, -2.0f, 3.0f, 4.25f}));
}

// The initializer views a mapping of the data file (listed with its path in
// /proc/self/maps), rather than a copy.
TEST_F(ExternalData, IsMemoryMappedNotCopied) {
  Graph graph = import_onnx(write_model("weights/w.bin", "4", "16"));
  const auto address = reinterpret_cast<uintptr_t>(graph.constant("w")->data());
  std::ifstream maps("/proc/self/maps");
  std::string line;
  bool in_mapping_of_file = false;
  while (std::getline(maps, line)) {
    uintptr_t low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &low, &high) != 2) continue;
    if (address >= low && address < high) {
      in_mapping_of_file = line.find((fs::weakly_canonical(folder_) / "weights" / "w.bin").string()) != std::string::npos;
    }
  }
  EXPECT_TRUE(in_mapping_of_file);
}

// Data at an offset that is not a multiple of the element size is copied, with the same values.
TEST_F(ExternalData, UnalignedOffsetIsCopied) {
  const float values[4] = {7.0f, -1.0f, 0.5f, 2.0f};
  std::ofstream out(folder_ / "weights" / "odd.bin", std::ios::binary);
  out.write("ab", 2);
  out.write(reinterpret_cast<const char*>(values), sizeof values);
  out.close();
  Graph graph = import_onnx(write_model("weights/odd.bin", "2", "16"));
  EXPECT_EQ(values_of(*graph.constant("w")), (std::vector<float>{7.0f, -1.0f, 0.5f, 2.0f}));
}

// A 4-bit initializer (ONNX's INT4, 22) in a data file: five elements packed in three
// bytes, low nibble first, read unpacked as int8; its length counts packed bytes. In
// raw_data, bytes that do not match the packed size are an error.
TEST_F(ExternalData, FourBitDataIsUnpacked) {
  const unsigned char packed[3] = {0x78, 0xF3, 0x05};  // -8 7 | 3 -1 | 5
  std::ofstream(folder_ / "weights" / "q.bin", std::ios::binary).write(reinterpret_cast<const char*>(packed), 3);
  OnnxModelBuilder m;
  m.output("q", onnx::TensorProto::INT8);
  onnx::TensorProto& q = m.raw_initializer();
  q.set_name("q");
  q.set_data_type(22);
  q.add_dims(5);
  q.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = q.add_external_data();
  location->set_key("location");
  location->set_value("weights/q.bin");
  const fs::path path = folder_ / "model.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  const Graph graph = import_onnx(path.string());
  ASSERT_NE(graph.constant("q"), nullptr);
  const int8_t* v = graph.constant("q")->data_as<int8_t>();
  EXPECT_EQ(std::vector<int>(v, v + 5), (std::vector<int>{-8, 7, 3, -1, 5}));

  q.clear_data_location();
  q.clear_external_data();
  q.set_raw_data(std::string(2, '\0'));
  std::ofstream(path, std::ios::binary) << m.bytes();
  EXPECT_NE(import_error(path.string()).find("declares 5 4-bit elements (3 bytes packed) but holds 2 bytes"),
            std::string::npos);
}

TEST_F(ExternalData, LengthOtherThanTheShapesBytesIsAnError) {
  EXPECT_NE(import_error(write_model("weights/w.bin", "4", "12")).find("external data holds 12 bytes"),
            std::string::npos);
}

TEST_F(ExternalData, NonRegularFileIsRefused) {
  ASSERT_EQ(::mkfifo((folder_ / "weights" / "fifo").c_str(), 0600), 0);
  EXPECT_NE(import_error(write_model("weights/fifo", "0", "16")).find("not a regular file"), std::string::npos);
}

TEST_F(ExternalData, FileShorterThanOffsetPlusLengthIsAnError) {
  EXPECT_NE(import_error(write_model("weights/w.bin", "8", "16")).find("fewer than offset 8 + length 16"),
            std::string::npos);
}

TEST_F(ExternalData, LocationsLeavingTheFolderAreRefused) {
  for (const std::string& location : {std::string("../w.bin"), std::string("weights/../../w.bin"),
                                      (folder_ / "weights" / "w.bin").string()}) {
    EXPECT_NE(import_error(write_model(location, "4", "16")).find("leaves the model's folder"), std::string::npos)
        << location;
  }
}

TEST_F(ExternalData, SymlinkOutOfTheFolderIsRefused) {
  fs::create_directory_symlink(fs::temp_directory_path(), folder_ / "outside");
  EXPECT_NE(import_error(write_model("outside/w.bin", "4", "16")).find("leaves the model's folder"),
            std::string::npos);
}

TEST_F(ExternalData, ModelFromBytesCannotReadExternalData) {
  std::ifstream in(write_model("weights/w.bin", "4", "16"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THROW(import_onnx_bytes(bytes), Error);
}

// The model-level checks that come with reading files: IR version, opset range, domains.
std::string bytes_import_error(const OnnxModelBuilder& m) {
  try {
    import_onnx_bytes(m.bytes());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ImportVersions, OpsetsAbove28AreRefusedByNumber) {
  OnnxModelBuilder m(29);
  m.input("x", {2}).output("x");
  const std::string error = bytes_import_error(m);
  EXPECT_NE(error.find("opset 29; NEE supports opsets 1 to 28"), std::string::npos) << error;
}

// Below opset 7 a node is read as it is when its operator's definition at opset 7
// already existed at the model's opset (Relu's, version 6, at opset 6), upgraded when an
// upgrade exists (tests/importer/legacy_opset_test.cpp), and refused by name otherwise:
// Tile before opset 6 took tiles and axis inputs.
TEST(ImportVersions, OlderOpsetsReadOperatorsUnchangedSinceOrUpgraded) {
  OnnxModelBuilder same(6);
  same.input("x", {2}).output("y");
  same.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(bytes_import_error(same), "");

  OnnxModelBuilder changed(5);
  changed.input("x", {2}).input("tiles", onnx::TensorProto::INT64, {"1"}).input("axis", onnx::TensorProto::INT64, {"1"});
  changed.output("y");
  changed.node("Tile", {"x", "tiles", "axis"}, {"y"});
  const std::string error = bytes_import_error(changed);
  EXPECT_NE(error.find("'Tile' at opset 5 is an older version than NEE reads"), std::string::npos) << error;
}

TEST(ImportVersions, IrVersionBelow3IsRefused) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("x");
  m.model().set_ir_version(2);
  EXPECT_NE(bytes_import_error(m).find("IR version 2"), std::string::npos);
}

TEST(ImportVersions, OtherDomainOperatorNamesDomainAndOp) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("MyOp", {"x"}, {"y"}).set_domain("com.example");
  const std::string error = bytes_import_error(m);
  EXPECT_NE(error.find("'MyOp'"), std::string::npos) << error;
  EXPECT_NE(error.find("'com.example'"), std::string::npos) << error;
}

TEST(ImportVersions, ValueInfoContradictingInferredShapeIsAnError) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).output("y");
  m.node("Identity", {"x"}, {"mid"});
  m.node("Identity", {"mid"}, {"y"});
  auto* info = m.model().mutable_graph()->add_value_info();
  info->set_name("mid");
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  info->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(6);
  EXPECT_NE(bytes_import_error(m).find("value 'mid'"), std::string::npos);
}

}  // namespace
}  // namespace nee
