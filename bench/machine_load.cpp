#include "bench/machine_load.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace nee::bench {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path + " for the machine's load");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

double parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  double load1 = 0;
  if (!(in >> load1) || load1 < 0) throw Error("/proc/loadavg does not start with a load average: '" + text + "'");
  return load1;
}

LoadSample parse_proc_stat(const std::string& text) {
  std::istringstream in(text);
  std::string label;
  // user nice system idle iowait irq softirq steal; guest and guest_nice follow and are
  // already counted in user and nice.
  std::vector<uint64_t> ticks(8);
  in >> label;
  for (uint64_t& t : ticks) in >> t;
  if (label != "cpu" || !in) {
    throw Error("/proc/stat does not start with a 'cpu' line of 8 counters: '" + text.substr(0, text.find('\n')) + "'");
  }
  LoadSample s;
  for (uint64_t t : ticks) s.total_ticks += t;
  s.busy_ticks = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6];
  s.steal_ticks = ticks[7];
  s.cpus = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 3 && line.compare(0, 3, "cpu") == 0 && std::isdigit(static_cast<unsigned char>(line[3]))) {
      ++s.cpus;
    }
  }
  s.cpus = std::max(1, s.cpus);
  return s;
}

LoadSample read_machine_load() {
  LoadSample s = parse_proc_stat(read_text("/proc/stat"));
  s.load1 = parse_loadavg(read_text("/proc/loadavg"));
  double seconds = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    seconds += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }
  s.own_ticks = seconds * static_cast<double>(sysconf(_SC_CLK_TCK));
  return s;
}

double LoadReading::steal_fraction() const {
  if (total_ticks < kMinTicksForShares) return 0;
  return static_cast<double>(steal_ticks) / static_cast<double>(total_ticks);
}

double LoadReading::others_cores() const {
  if (total_ticks < kMinTicksForShares) return 0;
  return std::max(0.0, others_ticks) / static_cast<double>(total_ticks) * cpus;
}

namespace {

bool others_took_cores(const LoadReading& r) {
  return r.others_cores() > std::max(0, r.cpus - r.threads) + kOthersCoresWarn;
}

}  // namespace

bool LoadReading::loaded() const {
  return samples > 0 && (max_load1 > threads || steal_fraction() > kStealWarnFraction || others_took_cores(*this));
}

std::string LoadReading::warning() const {
  if (!loaded()) return "";
  std::vector<std::string> seen;
  if (max_load1 > threads) {
    seen.push_back(fmt::format("load average up to {:.2f}, above the {} thread{} measuring", max_load1, threads,
                               threads == 1 ? "" : "s"));
  }
  if (others_took_cores(*this)) {
    seen.push_back(fmt::format("other processes kept {:.2f} of the {} CPUs busy beside {} thread{} measuring",
                               others_cores(), cpus, threads, threads == 1 ? "" : "s"));
  }
  if (steal_fraction() > kStealWarnFraction) {
    seen.push_back(fmt::format("{:.1f}% of CPU time stolen by the hypervisor", 100 * steal_fraction()));
  }
  return fmt::format("machine loaded while measuring ({}): other work shared the cores, these figures may be slow",
                     fmt::join(seen, "; "));
}

LoadReading combine(const LoadReading& a, const LoadReading& b) {
  if (a.samples == 0) return b;
  if (b.samples == 0) return a;
  LoadReading r = a;
  r.threads = std::max(a.threads, b.threads);
  r.samples = a.samples + b.samples;
  r.max_load1 = std::max(a.max_load1, b.max_load1);
  r.cpus = std::max(a.cpus, b.cpus);
  r.total_ticks = a.total_ticks + b.total_ticks;
  r.steal_ticks = a.steal_ticks + b.steal_ticks;
  r.others_ticks = a.others_ticks + b.others_ticks;
  return r;
}

nlohmann::json to_json(const LoadReading& r) {
  return {{"samples", r.samples},
          {"max_load_average_1min", r.max_load1},
          {"threads", r.threads},
          {"cpus", r.cpus},
          {"others_cores", r.others_cores()},
          {"steal_fraction", r.steal_fraction()},
          {"loaded", r.loaded()},
          {"warning", r.warning()}};
}

LoadWatch::LoadWatch(LoadSampler sampler, int threads) : sampler_(std::move(sampler)), first_(sampler_()) {
  reading_.threads = threads;
  reading_.cpus = first_.cpus;
  reading_.samples = 1;
  reading_.max_load1 = first_.load1;
}

void LoadWatch::sample() {
  const LoadSample s = sampler_();
  reading_.samples += 1;
  reading_.max_load1 = std::max(reading_.max_load1, s.load1);
  // /proc/stat sums the ticks of every possible CPU, so they only grow; the unsigned
  // differences are guarded all the same.
  reading_.total_ticks = s.total_ticks > first_.total_ticks ? s.total_ticks - first_.total_ticks : 0;
  reading_.steal_ticks = s.steal_ticks > first_.steal_ticks ? s.steal_ticks - first_.steal_ticks : 0;
  const double busy = s.busy_ticks > first_.busy_ticks ? static_cast<double>(s.busy_ticks - first_.busy_ticks) : 0;
  reading_.others_ticks = busy - (s.own_ticks - first_.own_ticks);
}

}  // namespace nee::bench
