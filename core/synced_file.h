#pragma once
#include <string>
#include <string_view>

namespace nee {

// Writes `bytes` to `path` (appended, or replacing what it held) and syncs them to disk
// before returning, so that what a later step relies on survives a kill or a crash.
// Throws nee::Error naming the file when it cannot be written.
void write_synced(const std::string& path, std::string_view bytes, bool append);

}  // namespace nee
