#include "runtime/bundle/bundle_signature.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/content_hash.h"
#include "core/error.h"
#include "runtime/bundle/bundle_folder.h"
#include "runtime/bundle/bundle_manifest.h"

namespace nee {

namespace {

constexpr const char* kSignatureFormat = "nee-bundle-signature";
constexpr uint64_t kMaxKeyFileBytes = 64 << 10;  // an Ed25519 PEM file is about 120 bytes
constexpr size_t kEd25519KeyBytes = 32, kEd25519SignatureBytes = 64;

// OpenSSL's queued errors as one line, emptying the queue.
std::string openssl_error() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof line);
    text += (text.empty() ? "" : "; ") + std::string(line);
  }
  return text.empty() ? "no reason given" : text;
}

std::string to_hex(const unsigned char* bytes, size_t size) {
  std::string hex;
  for (size_t i = 0; i < size; ++i) hex += fmt::format("{:02x}", bytes[i]);
  return hex;
}

std::optional<std::string> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

using PKey = std::shared_ptr<evp_pkey_st>;
using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

// Refuses a passphrase-protected key instead of asking for its passphrase on the terminal.
int no_passphrase(char*, int, int, void*) { return -1; }

// The key in a PEM file's text; nee::Error naming the file when it holds none, or one
// that is not Ed25519. `private_key` chooses which half is read.
PKey read_pem_key(const std::string& text, const std::string& path, bool private_key) {
  const char* kind = private_key ? "signing key" : "trusted key";
  const char* make =
      "make one with `openssl genpkey -algorithm ed25519 -out key.pem` and its public half with "
      "`openssl pkey -in key.pem -pubout -out key.pub.pem`";
  if (!private_key && text.find("PRIVATE KEY-----") != std::string::npos) {
    throw Error(fmt::format("{} '{}' is a private key; --trust takes public keys ({})", kind, path, make));
  }
  if (private_key && text.find("-----BEGIN PUBLIC KEY-----") != std::string::npos) {
    throw Error(fmt::format("{} '{}' is a public key; signing needs the private key ({})", kind, path, make));
  }
  Bio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
  EVP_PKEY* key = private_key ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr)
                              : PEM_read_bio_PUBKEY(bio.get(), nullptr, no_passphrase, nullptr);
  if (!key) {
    throw Error(fmt::format("{} '{}' is not an unencrypted PEM {} key ({}); {}", kind, path,
                            private_key ? "private" : "public", openssl_error(), make));
  }
  PKey owned(key, &EVP_PKEY_free);
  if (EVP_PKEY_id(key) != EVP_PKEY_ED25519) {
    const char* name = OBJ_nid2sn(EVP_PKEY_id(key));
    throw Error(fmt::format("{} '{}' is a {} key; NEE signs bundles with Ed25519 keys ({})", kind, path,
                            name ? name : "non-Ed25519", make));
  }
  return owned;
}

std::string raw_public_key(const PKey& key) {
  unsigned char raw[kEd25519KeyBytes];
  size_t size = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key.get(), raw, &size) != 1 || size != sizeof raw) {
    throw Error("reading an Ed25519 public key failed: " + openssl_error());
  }
  return std::string(reinterpret_cast<const char*>(raw), size);
}

// A key id as messages show it: enough hex digits to tell keys apart.
std::string short_id(const std::string& id) { return id.substr(0, 16); }

}  // namespace

std::string key_id(const std::string& raw_public_key) { return sha256_hex(raw_public_key); }

BundleSigningKey BundleSigningKey::load(const std::string& pem_path) {
  BundleSigningKey key;
  key.key_ = read_pem_key(read_regular_file(pem_path, kMaxKeyFileBytes, "signing key"), pem_path, true);
  key.id_ = key_id(raw_public_key(key.key_));
  return key;
}

std::string BundleSigningKey::sign(const std::string& manifest) const {
  DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char signature[kEd25519SignatureBytes];
  size_t size = sizeof signature;
  // Ed25519 hashes the message itself: no digest is named.
  if (!context || EVP_DigestSignInit(context.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(context.get(), signature, &size, reinterpret_cast<const unsigned char*>(manifest.data()),
                     manifest.size()) != 1) {
    throw Error("signing the bundle manifest failed: " + openssl_error());
  }
  const nlohmann::json j = {
      {"format", kSignatureFormat}, {"algorithm", "ed25519"}, {"key", id_}, {"signature", to_hex(signature, size)}};
  return j.dump(2) + "\n";
}

void sign_bundle(const std::string& bundle_dir, const BundleSigningKey& key) {
  const std::optional<std::string> manifest =
      BundleFolder(bundle_dir).read(kManifestFile, kMaxManifestBytes, "bundle manifest");
  if (!manifest) throw Error("cannot sign '" + bundle_dir + "': it has no manifest.json");
  const std::string path = bundle_dir + "/" + kSignatureFile;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << key.sign(*manifest);
  if (!out.flush()) throw Error("cannot write '" + path + "'");
}

TrustedKeys TrustedKeys::load(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error("no trusted keys were given");
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> in_folder;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      if (entry.path().extension() == ".pem") in_folder.push_back(entry.path().string());
    }
    if (in_folder.empty()) throw Error("trusted key folder '" + path + "' holds no .pem file");
    std::sort(in_folder.begin(), in_folder.end());
    files.insert(files.end(), in_folder.begin(), in_folder.end());
  }
  TrustedKeys trusted;
  for (const std::string& file : files) {
    const std::string raw =
        raw_public_key(read_pem_key(read_regular_file(file, kMaxKeyFileBytes, "trusted key"), file, false));
    trusted.keys_.push_back({raw, key_id(raw), file});
  }
  return trusted;
}

void TrustedKeys::verify(const std::string& where, const std::string& manifest,
                         const std::optional<std::string>& signature, const char* signature_file) const {
  std::vector<std::string> files;
  for (const Key& k : keys_) files.push_back(k.file);
  const std::string trusted = fmt::format("the trusted keys: {}", fmt::join(files, ", "));
  if (!signature) {
    throw Error(fmt::format("{} is unsigned (it has no {}); a signature by one of {} is required", where,
                            signature_file, trusted));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*signature);
    if (!j.is_object() || j.value("format", "") != kSignatureFormat || j.value("algorithm", "") != "ed25519") {
      throw Error("not an Ed25519 signature of a NEE bundle");
    }
    j.at("key").get<std::string>();
    j.at("signature").get<std::string>();
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: its {} is malformed: {}", where, signature_file, e.what()));
  }
  const std::string id = j.at("key").get<std::string>();
  const auto key = std::find_if(keys_.begin(), keys_.end(), [&](const Key& k) { return k.id == id; });
  if (key == keys_.end()) {
    throw Error(
        fmt::format("{} is signed by an unknown key (id {}), which is none of {}", where, short_id(id), trusted));
  }
  const std::optional<std::string> bytes = from_hex(j.at("signature").get<std::string>());
  PKey public_key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                              reinterpret_cast<const unsigned char*>(key->raw.data()), key->raw.size()),
                  &EVP_PKEY_free);
  DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!public_key || !context ||
      EVP_DigestVerifyInit(context.get(), nullptr, nullptr, nullptr, public_key.get()) != 1) {
    throw Error("verifying a bundle signature failed: " + openssl_error());
  }
  const bool valid =
      bytes && bytes->size() == kEd25519SignatureBytes &&
      EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(bytes->data()), bytes->size(),
                       reinterpret_cast<const unsigned char*>(manifest.data()), manifest.size()) == 1;
  ERR_clear_error();
  if (!valid) {
    throw Error(
        fmt::format("{} has a bad signature: its {} does not match the signature by trusted key {} ({}): "
                    "the manifest, or its signature, changed after signing",
                    where, kManifestFile, short_id(id), key->file));
  }
}

}  // namespace nee
