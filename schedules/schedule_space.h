#pragma once
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <Halide.h>

#include "core/schedule_config.h"
#include "core/target.h"
#include "core/workload.h"

namespace nee {

// A knob of a schedule space: its name, the values it may take for this workload, and
// what it means.
struct Knob {
  std::string name;
  std::vector<int64_t> values;
  std::string meaning;
  // For a knob added to a space after points were stored: the value that means what
  // those points, which lack it, did. Such points stay valid and are filled in.
  std::optional<int64_t> absent = std::nullopt;
};

// A scheduled pipeline ready for the builder.
struct ScheduledKernel {
  Halide::Pipeline pipeline;
  std::vector<Halide::Argument> arguments;  // inputs in call order; the output comes last
};

// A schedule space for one workload on one kind of target: knobs with domains, the
// constraints between them, a default point, and the code that applies a point.
// Domains are cut to the workload's extents, so every value listed can be chosen.
class ScheduleSpace {
 public:
  virtual ~ScheduleSpace() = default;
  virtual std::string name() const = 0;
  const std::vector<Knob>& knobs() const { return knobs_; }

  virtual ScheduleConfig default_config() const = 0;
  // The point with every knob it lacks that has an `absent` value set to that value.
  ScheduleConfig complete(const ScheduleConfig& config) const;
  // Empty when the (completed) point is valid; otherwise why it is rejected, before any
  // compile.
  std::string check(const ScheduleConfig& config) const;
  // Applies a valid point, completed (throws nee::Error on an invalid one).
  ScheduledKernel schedule(const ScheduleConfig& config) const;

  // A uniformly random valid point (rejection sampling over the knob domains).
  ScheduleConfig random_config(std::mt19937_64& rng) const;
  // Number of points in the knob domains' product, valid or not.
  double size() const;

 protected:
  virtual std::string check_constraints(const ScheduleConfig& config) const = 0;
  virtual ScheduledKernel apply(const ScheduleConfig& config) const = 0;
  std::vector<Knob> knobs_;
};

// The space for a workload on a target; CPU spaces fit their register blocks to the
// target's vector unit. Throws nee::Error if NEE has none.
std::unique_ptr<ScheduleSpace> make_schedule_space(const Workload& workload, const Target& target);
// The same for a kind of target on this host (the CPU spaces use the host's vector unit
// and caches).
std::unique_ptr<ScheduleSpace> make_schedule_space(const Workload& workload, TargetKind kind);

// Whole tiles of `b` that cover `a` (positive operands).
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Keeps the values of a domain that do not exceed `limit`; never returns an empty domain
// (the smallest value survives).
std::vector<int64_t> values_up_to(std::vector<int64_t> values, int64_t limit);

// The largest value of knob `name`'s domain that does not exceed `wanted`, or the
// domain's first value: how default points pick sizes that fit the workload.
int64_t largest_value_up_to(const std::vector<Knob>& knobs, const std::string& name, int64_t wanted);

// Of `values` in [limit / 2, limit], the tile whose whole tiles cover `extent` with the
// least excess (a divisor where one lies there; the largest on ties), else the largest
// that does not exceed `limit` (or the first): how default points pick tiles.
int64_t fitting_tile(const std::vector<int64_t>& values, int64_t extent, int64_t limit);

}  // namespace nee
