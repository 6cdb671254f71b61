#pragma once
#include <cstddef>
#include <string>

namespace nee {

// SHA-256 as lowercase hex, of bytes in memory, a string or a file's bytes.
std::string sha256_hex(const void* data, size_t size);
std::string sha256_hex(const std::string& bytes);
std::string sha256_file(const std::string& path);

}  // namespace nee
