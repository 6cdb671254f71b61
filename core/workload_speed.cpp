#include "core/workload_speed.h"

#include <fmt/format.h>

#include "core/family.h"

namespace nee {

static bool moves_data_only(const Workload& w) { return family_of(w).speed_unit == SpeedUnit::gbytes; }

double speed_work(const Workload& w) {
  if (!moves_data_only(w)) return w.flops();
  return 2.0 * static_cast<double>(w.output.elements()) * static_cast<double>(dtype_size(w.output.dtype));
}

std::string speed_unit(const Workload& w) { return moves_data_only(w) ? "GB/s" : "GFLOP/s"; }

double speed(const Workload& w, double us) { return speed_work(w) / us / 1e3; }

std::string speed_text(const Workload& w, double us) { return fmt::format("{:.1f} {}", speed(w, us), speed_unit(w)); }

}  // namespace nee
