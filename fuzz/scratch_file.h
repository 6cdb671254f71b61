#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nee::fuzz {

// Writes an input into this process's scratch file (one per process and `suffix`,
// rewritten for each input: libFuzzer runs inputs one at a time; removed at exit) for
// readers that take a path, and returns its path. Aborts when the file cannot be written.
const std::string& write_scratch_file(const std::string& suffix, const uint8_t* data, size_t size);

}  // namespace nee::fuzz
