#pragma once
#include <string>

namespace nee::test {

// Writes a fresh Ed25519 key pair as `openssl genpkey -algorithm ed25519` and
// `openssl pkey -pubout` would: the private key to `private_pem`, its public half to
// `public_pem`.
void write_ed25519_key_pair(const std::string& private_pem, const std::string& public_pem);

}  // namespace nee::test
