#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace nee::bench {

// One look at how busy the machine is: the 1-minute load average (/proc/loadavg), the
// CPU time counters of /proc/stat's "cpu" line in clock ticks since boot, and the CPU
// time of this process and its reaped children (getrusage) in the same ticks.
struct LoadSample {
  double load1 = 0;
  uint64_t total_ticks = 0;  // user + nice + system + idle + iowait + irq + softirq + steal
  uint64_t busy_ticks = 0;   // user + nice + system + irq + softirq
  uint64_t steal_ticks = 0;  // time the hypervisor ran other guests on this guest's CPUs
  double own_ticks = 0;      // this process's and its waited-for children's user + system time
  int cpus = 1;              // the "cpuN" lines of /proc/stat
};

// Where samples come from: read_machine_load, or a stand-in in the tests.
using LoadSampler = std::function<LoadSample()>;

// Reads /proc/loadavg, /proc/stat and getrusage; throws nee::Error naming the file it
// cannot read or parse.
LoadSample read_machine_load();
// The parsers read_machine_load uses, on the files' text; throw nee::Error quoting it.
double parse_loadavg(const std::string& text);
LoadSample parse_proc_stat(const std::string& text);

// A load average above the threads a measurement runs means other work shared the
// cores; stolen time above this share of CPU time means the hypervisor gave them away.
// This machine is shared: NEE/peer ratios moved by up to 2x while others built.
constexpr double kStealWarnFraction = 0.03;
// The load average lags: it decays over a minute, so a measurement that starts while
// others build reads their load alone (1.73 with 2 threads measuring here, while the FMA
// probe ran at 116 of its 222 GFLOP/s). Other processes' CPU time over the measurement
// (the machine's busy ticks less this process's) does not lag: more than this many cores
// of it beyond those the measurement leaves free means they took some of its cores.
constexpr double kOthersCoresWarn = 0.2;
// Below this many ticks (0.5 s of 2 CPUs at 100 per second) the tick counts are too
// coarse to judge a share of CPU time by (3 stolen ticks of 50 would read as 6%).
constexpr uint64_t kMinTicksForShares = 100;

// The machine's load over one measurement, from samples taken before, during and after.
// The highest load average of the samples is kept; CPU times count between the first
// and last sample.
struct LoadReading {
  int threads = 1;  // the measurement's own threads: a load average up to this is its own
  int cpus = 1;
  int samples = 0;
  double max_load1 = 0;
  uint64_t total_ticks = 0, steal_ticks = 0;
  double others_ticks = 0;  // busy ticks not spent by this process or its children
  // Stolen ticks over all ticks; 0 below kMinTicksForShares.
  double steal_fraction() const;
  // The average number of CPUs other processes kept busy; 0 below kMinTicksForShares.
  double others_cores() const;
  bool loaded() const;
  // Empty for a quiet machine; else what was seen, for the report beside the figures.
  std::string warning() const;
};

// The two readings as one (an engine's rounds): the higher load, the ticks summed.
LoadReading combine(const LoadReading& a, const LoadReading& b);
nlohmann::json to_json(const LoadReading& r);

// Samples the machine from construction until reading(): call sample() between the
// parts of a long measurement so a short burst of load is not missed.
class LoadWatch {
 public:
  LoadWatch(LoadSampler sampler, int threads);
  void sample();
  LoadReading reading() const { return reading_; }

 private:
  LoadSampler sampler_;
  LoadSample first_;
  LoadReading reading_;
};

}  // namespace nee::bench
