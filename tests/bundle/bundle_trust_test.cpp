// A bundle is checked before any of its code is mapped (docs/TRUST.md). Its "kernels
// library" here is constructor_marker.c, whose constructor leaves a marker file naming
// where it was loaded from: a test sees whether the loader mapped it. Each test writes
// its own one-kernel bundle folder; nothing is compiled, so the suite takes well under
// a second.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/matmul_workload.h"
#include "core/version.h"
#include "runtime/bundle/bundle_signature.h"
#include "runtime/bundle/kernel_bundle.h"
#include "test_key_pair.h"

namespace nee {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

class BundleTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "nee-trust-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = root_ + "/bundle";
    fs::create_directory(dir_);
    marker_ = root_ + "/constructor-ran";
    setenv("NEE_TEST_MARKER", marker_.c_str(), 1);
    library_ = "kernels-" + host_isa_level().name + ".so";
    image_ = read_bytes(NEE_TEST_MARKER_LIBRARY);
    ASSERT_GT(image_.size(), sizeof(Elf64_Ehdr));
    write_bundle(image_);
  }
  void TearDown() override {
    unsetenv("NEE_TEST_MARKER");
    fs::remove_all(root_);
  }

  // Writes `image` as the bundle's one library and a manifest that gives `sha256` as its
  // hash (by default, the image's own).
  void write_bundle(const std::string& image, const std::string& sha256 = "") const {
    write_bytes(dir_ + "/" + library_, image);
    BundleManifest m;
    m.nee_version = kVersion;
    m.abi_version = kBundleAbiVersion;
    m.target.halide = host_isa_level().halide;
    m.target.device = DeviceFingerprint::of_host();
    BundleVariant v;
    v.isa = host_isa_level().name;
    v.halide = host_isa_level().halide;
    v.library_file = library_;
    v.library_sha256 = sha256.empty() ? sha256_hex(image) : sha256;
    BundleKernelEntry k;
    k.workload = matmul_workload_from_shape("4x8x16");
    k.symbol = "nee_k0_marker";
    k.source = "default";
    v.kernels.push_back(k);
    m.variants.push_back(v);
    m.save(dir_);
  }

  // The message of the error load() throws, or a failure when it does not throw.
  std::string load_error(std::shared_ptr<const TrustedKeys> keys = nullptr) const {
    BundleLoadOptions options;
    options.trusted_keys = std::move(keys);
    try {
      KernelBundle::load(dir_, options);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "the bundle was loaded";
    return "";
  }

  bool constructor_ran() const { return fs::exists(marker_); }

  // A fresh key pair: root_/<name>.key.pem and root_/<name>.pub.pem.
  std::string make_key(const std::string& name) const {
    test::write_ed25519_key_pair(root_ + "/" + name + ".key.pem", root_ + "/" + name + ".pub.pem");
    return root_ + "/" + name;
  }
  static std::shared_ptr<const TrustedKeys> trust(const std::vector<std::string>& paths) {
    return std::make_shared<const TrustedKeys>(TrustedKeys::load(paths));
  }
  void sign_with(const std::string& key) const { sign_bundle(dir_, BundleSigningKey::load(key + ".key.pem")); }

  std::string root_, dir_, marker_, library_, image_;
};

// The control: a bundle that passes every check is mapped, its constructor runs, from
// the sealed memory file, not from the bundle's file, and it is then refused for
// lacking NEE's entry points. The refusals below leave no marker.
TEST_F(BundleTrust, MarkerShowsThatALibraryWasMapped) {
  EXPECT_HAS(load_error(), "has no symbol 'nee_bundle_abi_version'");
  ASSERT_TRUE(constructor_ran());
  EXPECT_EQ(read_bytes(marker_).rfind("/proc/self/fd/", 0), 0u) << read_bytes(marker_);
}

// ld.so hands back an already loaded library of the same name without opening the file.
// Libraries that dlclose() left mapped (RTLD_NODELETE here) hold the names
// /proc/self/fd/N of eight descriptors closed since, the numbers the loader's memory file
// gets next: the bundle's library is still the one loaded.
TEST_F(BundleTrust, LeftOverLibraryOfTheSameDescriptorNameIsNotTakenForIt) {
  unsetenv("NEE_TEST_MARKER");
  std::vector<int> fds;
  for (int i = 0; i < 8; ++i) {
    fds.push_back(memfd_create("left-over", MFD_CLOEXEC));
    ASSERT_GE(fds.back(), 0);
    ASSERT_EQ(write(fds.back(), image_.data(), image_.size()), static_cast<ssize_t>(image_.size()));
  }
  for (int fd : fds) {
    void* left_over = dlopen(fmt::format("/proc/self/fd/{}", fd).c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    ASSERT_NE(left_over, nullptr) << dlerror();
    dlclose(left_over);
    close(fd);
  }
  ASSERT_FALSE(constructor_ran());
  setenv("NEE_TEST_MARKER", marker_.c_str(), 1);
  EXPECT_HAS(load_error(), "has no symbol 'nee_bundle_abi_version'");
  ASSERT_TRUE(constructor_ran());
  const std::string loaded_from = read_bytes(marker_);
  for (int fd : fds) EXPECT_NE(loaded_from, fmt::format("/proc/self/fd/{}", fd));
}

TEST_F(BundleTrust, LibraryWhoseHashDiffersIsNeverMapped) {
  write_bundle(image_, sha256_hex("the library that was built"));
  const std::string e = load_error();
  EXPECT_HAS(e, library_ + " changed since the bundle was built");
  EXPECT_FALSE(constructor_ran());
}

TEST_F(BundleTrust, UnsignedBundleIsRefusedUnderTrust) {
  const std::string key = make_key("deploy");
  const std::string e = load_error(trust({key + ".pub.pem"}));
  EXPECT_HAS(e, "bundle '" + dir_ + "' is unsigned (it has no manifest.sig)");
  EXPECT_HAS(e, "deploy.pub.pem");
  EXPECT_FALSE(constructor_ran());
}

TEST_F(BundleTrust, BundleSignedByAnotherKeyIsRefused) {
  const std::string mine = make_key("deploy"), theirs = make_key("stranger");
  sign_with(theirs);
  const std::string e = load_error(trust({mine + ".pub.pem"}));
  EXPECT_HAS(e, "is signed by an unknown key (id " + BundleSigningKey::load(theirs + ".key.pem").id().substr(0, 16));
  EXPECT_FALSE(constructor_ran());
}

// The attack a manifest hash alone cannot stop: another library and a manifest updated
// to its hash.
TEST_F(BundleTrust, LibrarySubstitutedAfterSigningIsRefused) {
  const std::string key = make_key("deploy");
  sign_with(key);
  write_bundle(image_ + std::string(64, '\0'));
  const std::string e = load_error(trust({key + ".pub.pem"}));
  EXPECT_HAS(e, "has a bad signature: its manifest.json does not match the signature by trusted key");
  EXPECT_FALSE(constructor_ran());
}

TEST_F(BundleTrust, MalformedSignatureIsRefused) {
  const std::string key = make_key("deploy");
  write_bytes(dir_ + "/manifest.sig", "{\"format\": \"nee-bundle-signature\", \"algorithm\": \"rsa\"}");
  EXPECT_HAS(load_error(trust({key + ".pub.pem"})), "its manifest.sig is malformed");
  EXPECT_FALSE(constructor_ran());
}

// Past the signature, the bundle is mapped (and refused for the marker's missing entry
// points); keys come from files and from folders of *.pem files alike.
TEST_F(BundleTrust, SignedBundlePassesTrust) {
  const std::string key = make_key("deploy");
  sign_with(key);
  fs::create_directory(root_ + "/keys");
  test::write_ed25519_key_pair(root_ + "/other.key.pem", root_ + "/keys/other.pub.pem");
  fs::copy_file(key + ".pub.pem", root_ + "/keys/deploy.pub.pem");
  for (const auto& keys : {std::vector<std::string>{key + ".pub.pem"}, std::vector<std::string>{root_ + "/keys"}}) {
    fs::remove(marker_);
    EXPECT_HAS(load_error(trust(keys)), "has no symbol 'nee_bundle_abi_version'");
    EXPECT_TRUE(constructor_ran());
  }
  EXPECT_EQ(trust({root_ + "/keys"})->size(), 2u);
}

TEST_F(BundleTrust, KeyFilesAreCheckedByName) {
  const std::string key = make_key("deploy");
  const auto error = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_HAS(error([&] { TrustedKeys::load({key + ".key.pem"}); }), "is a private key; --trust takes public keys");
  EXPECT_HAS(error([&] { BundleSigningKey::load(key + ".pub.pem"); }),
             "is a public key; signing needs the private key");
  write_bytes(root_ + "/garbage.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
  EXPECT_HAS(error([&] { TrustedKeys::load({root_ + "/garbage.pem"}); }), "is not an unencrypted PEM public key");
  fs::create_directory(root_ + "/empty");
  EXPECT_HAS(error([&] { TrustedKeys::load({root_ + "/empty"}); }), "holds no .pem file");
  ASSERT_EQ(mkfifo((root_ + "/fifo.pem").c_str(), 0600), 0);
  EXPECT_HAS(error([&] { TrustedKeys::load({root_ + "/fifo.pem"}); }), "is a FIFO, not a regular file");
  EXPECT_HAS(error([&] { BundleSigningKey::load(root_ + "/none.pem"); }), "none.pem': No such file");
}

// The FIFO is refused by what it is, never opened: opening one for reading waits for a
// writer. Should the load wait, the test writes nothing into it and so ends it.
TEST_F(BundleTrust, FifoManifestIsRefusedAtOnce) {
  const std::string manifest = dir_ + "/manifest.json";
  fs::remove(manifest);
  ASSERT_EQ(mkfifo(manifest.c_str(), 0600), 0);
  auto load = std::async(std::launch::async, [&] { return load_error(); });
  if (load.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    const int writer = open(manifest.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) close(writer);
    FAIL() << "loading a bundle whose manifest is a FIFO waited for a writer";
  }
  EXPECT_HAS(load.get(), "bundle manifest '" + manifest + "' is a FIFO, not a regular file");
}

TEST_F(BundleTrust, ManifestThatIsAFolderOrHugeIsRefused) {
  const std::string manifest = dir_ + "/manifest.json";
  fs::remove(manifest);
  fs::create_directory(manifest);
  EXPECT_HAS(load_error(), "is a folder, not a regular file");
  fs::remove(manifest);
  // Sparse: refused by its size before a byte is read.
  const int fd = open(manifest.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kMaxManifestBytes + 1), 0);
  close(fd);
  EXPECT_HAS(load_error(),
             fmt::format("is {} bytes, over the limit of {} bytes", kMaxManifestBytes + 1, kMaxManifestBytes));
}

TEST_F(BundleTrust, LibraryLinkedOutsideTheFolderIsRefused) {
  const std::string outside = root_ + "/outside.so";
  fs::rename(dir_ + "/" + library_, outside);
  fs::create_symlink(outside, dir_ + "/" + library_);
  const std::string e = load_error();
  EXPECT_HAS(e, "kernel library '" + dir_ + "/" + library_ + "' is a symbolic link (to '" + outside + "')");
  EXPECT_FALSE(constructor_ran());
  // A link inside the folder is refused too: a bundle's files are its own.
  fs::remove(dir_ + "/" + library_);
  fs::rename(outside, dir_ + "/real.so");
  fs::create_symlink("real.so", dir_ + "/" + library_);
  EXPECT_HAS(load_error(), "is a symbolic link (to 'real.so')");
  EXPECT_FALSE(constructor_ran());
}

TEST_F(BundleTrust, LibraryPathLeavingTheFolderIsRefused) {
  auto j = nlohmann::json::parse(read_bytes(dir_ + "/manifest.json"));
  j["variants"][0]["library"]["file"] = "../outside.so";
  write_bytes(dir_ + "/manifest.json", j.dump());
  EXPECT_HAS(load_error(), "must be a plain file name, not '../outside.so'");
}

// Damaged libraries whose hash was updated to match: a clear error where ld.so died of
// SIGBUS (truncated) or SIGSEGV and failed assertions (damaged headers).
TEST_F(BundleTrust, TruncatedLibraryGetsAClearError) {
  write_bundle(image_.substr(0, image_.size() / 2));
  EXPECT_HAS(load_error(), "is truncated or damaged: its loaded segment");
  write_bundle(image_.substr(0, 20));
  EXPECT_HAS(load_error(), "is 20 bytes, too short for an ELF header (64 bytes): truncated");
  EXPECT_FALSE(constructor_ran());
}

TEST_F(BundleTrust, DamagedOrForeignLibraryGetsAClearError) {
  const auto damaged = [&](size_t offset, const auto& value) {
    std::string image = image_;
    std::memcpy(image.data() + offset, &value, sizeof value);
    write_bundle(image);
    return load_error();
  };
  EXPECT_HAS(damaged(0, uint8_t{0x7e}), "is not an ELF shared library (it starts with bytes 7e 45 4c 46");
  const uint16_t other_machine = host_arch() == "x86-64" ? EM_AARCH64 : EM_X86_64;
  EXPECT_HAS(damaged(offsetof(Elf64_Ehdr, e_machine), other_machine), "is built for ");
  EXPECT_HAS(damaged(EI_CLASS, uint8_t{ELFCLASS32}), "is a 32-bit ELF file");
  EXPECT_HAS(damaged(offsetof(Elf64_Ehdr, e_type), uint16_t{ET_EXEC}), "is an executable, not a shared library");
  EXPECT_HAS(damaged(offsetof(Elf64_Ehdr, e_phoff), uint64_t{1} << 40), "program headers at byte");
  EXPECT_FALSE(constructor_ran());
}

}  // namespace
}  // namespace nee
