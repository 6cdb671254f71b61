#pragma once
#include <string>

namespace nee {

// SHA-256 as lowercase hex, of a string or of a file's bytes.
std::string sha256_hex(const std::string& bytes);
std::string sha256_file(const std::string& path);

}  // namespace nee
