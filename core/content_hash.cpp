#include "core/content_hash.h"

#include <openssl/evp.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace nee {

std::string sha256_hex(const std::string& bytes) { return sha256_hex(bytes.data(), bytes.size()); }

std::string sha256_hex(const void* data, size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr) != 1) {
    throw Error("sha256 failed");
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return sha256_hex(buffer.str());
}

}  // namespace nee
