#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct evp_pkey_st;  // OpenSSL's EVP_PKEY

namespace nee {

// A bundle's signature: manifest.sig beside manifest.json, an Ed25519 signature of the
// manifest's bytes, which hold every kernel library's sha256, so it covers the whole
// bundle. A JSON object: format "nee-bundle-signature", algorithm "ed25519", key (the
// signing key's id, see key_id()), signature (hex).
inline constexpr const char* kSignatureFile = "manifest.sig";
inline constexpr uint64_t kMaxSignatureBytes = 4096;  // one is about 300 bytes

// An Ed25519 private key from a PEM file, made with
//   openssl genpkey -algorithm ed25519 -out bundle-key.pem
// and its public half, for `nee-run --trust`, with
//   openssl pkey -in bundle-key.pem -pubout -out bundle-key.pub.pem
class BundleSigningKey {
 public:
  // nee::Error naming the file when it is not an unencrypted Ed25519 private key.
  static BundleSigningKey load(const std::string& pem_path);
  // The text of manifest.sig for these manifest bytes.
  std::string sign(const std::string& manifest) const;
  const std::string& id() const { return id_; }

 private:
  std::shared_ptr<evp_pkey_st> key_;
  std::string id_;
};

// Signs the manifest.json in `bundle_dir` as it lies there and writes manifest.sig.
void sign_bundle(const std::string& bundle_dir, const BundleSigningKey& key);

// The public keys a deployment lets sign the bundles it runs (`nee-run --trust`).
class TrustedKeys {
 public:
  // Each path a PEM file of an Ed25519 public key, or a folder whose *.pem files all
  // are; nee::Error naming a file that is not one, or a folder that holds none.
  static TrustedKeys load(const std::vector<std::string>& paths);
  // nee::Error naming `where` and why unless `signature` (the text of manifest.sig, or of
  // `signature_file` where another file signs another manifest; nullopt when there is
  // none) is a valid signature of `manifest` by one of the keys: unsigned, unknown key,
  // or bad signature (the manifest changed after signing).
  void verify(const std::string& where, const std::string& manifest, const std::optional<std::string>& signature,
              const char* signature_file = kSignatureFile) const;
  size_t size() const { return keys_.size(); }

 private:
  struct Key {
    std::string raw;  // the 32 bytes of the public key
    std::string id;
    std::string file;  // where it was read from
  };
  std::vector<Key> keys_;
};

// A key's id: the sha256 of its 32 raw public-key bytes, in hex.
std::string key_id(const std::string& raw_public_key);

}  // namespace nee
