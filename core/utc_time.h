#pragma once
#include <ctime>
#include <string>

namespace nee {

// ISO-8601 UTC text to the second ("2024-05-01T12:00:00Z"): the one format of every
// stored time, so text comparison orders by time.
std::string utc_iso8601(std::time_t t);
std::string utc_now_iso8601();

}  // namespace nee
