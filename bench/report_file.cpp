#include "bench/report_file.h"

#include <fstream>

#include "core/error.h"

namespace nee::bench {

void write_report_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw Error("cannot write " + path);
}

}  // namespace nee::bench
