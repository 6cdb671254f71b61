#include "core/utc_time.h"

namespace nee {

std::string utc_iso8601(std::time_t t) {
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string utc_now_iso8601() { return utc_iso8601(std::time(nullptr)); }

}  // namespace nee
