#pragma once
#include <string>

namespace nee::bench {

// Writes a report (JSON, Markdown, SVG) to `path`, replacing it; throws nee::Error naming
// the path when it cannot be written.
void write_report_file(const std::string& path, const std::string& text);

}  // namespace nee::bench
