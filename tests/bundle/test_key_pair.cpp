#include "test_key_pair.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <memory>

#include "core/error.h"

namespace nee::test {

void write_ed25519_key_pair(const std::string& private_pem, const std::string& public_pem) {
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> context(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr),
                                                                      &EVP_PKEY_CTX_free);
  EVP_PKEY* raw = nullptr;
  if (!context || EVP_PKEY_keygen_init(context.get()) != 1 || EVP_PKEY_keygen(context.get(), &raw) != 1) {
    throw Error("making an Ed25519 key failed");
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw, &EVP_PKEY_free);
  const auto write = [&](const std::string& path, bool private_half) {
    std::unique_ptr<FILE, decltype(&fclose)> file(fopen(path.c_str(), "w"), &fclose);
    const int ok = !file          ? 0
                   : private_half ? PEM_write_PrivateKey(file.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)
                                  : PEM_write_PUBKEY(file.get(), key.get());
    if (ok != 1) throw Error("writing the key file '" + path + "' failed");
  };
  write(private_pem, true);
  write(public_pem, false);
}

}  // namespace nee::test
