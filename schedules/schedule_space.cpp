#include "schedules/schedule_space.h"

#include <algorithm>

#include "core/error.h"

namespace nee {

ScheduleConfig ScheduleSpace::complete(const ScheduleConfig& config) const {
  ScheduleConfig completed = config;
  for (const Knob& knob : knobs_) {
    if (knob.absent && !completed.knobs.count(knob.name)) completed.knobs[knob.name] = *knob.absent;
  }
  return completed;
}

std::string ScheduleSpace::check(const ScheduleConfig& given) const {
  const ScheduleConfig config = complete(given);
  for (const Knob& knob : knobs_) {
    auto it = config.knobs.find(knob.name);
    if (it == config.knobs.end()) return "knob '" + knob.name + "' is missing";
    if (std::find(knob.values.begin(), knob.values.end(), it->second) == knob.values.end()) {
      return "knob '" + knob.name + "' = " + std::to_string(it->second) + " is outside its domain";
    }
  }
  if (config.knobs.size() != knobs_.size()) return "the schedule has knobs this space does not know";
  return check_constraints(config);
}

ScheduledKernel ScheduleSpace::schedule(const ScheduleConfig& config) const {
  const std::string problem = check(config);
  if (!problem.empty()) throw Error("invalid schedule for " + name() + ": " + problem);
  return apply(complete(config));
}

ScheduleConfig ScheduleSpace::random_config(std::mt19937_64& rng) const {
  // Valid points are a sizeable share of every space NEE defines (constraints cut
  // register blocks and tiles), so rejection sampling ends quickly.
  for (int attempt = 0; attempt < 100000; ++attempt) {
    ScheduleConfig c;
    for (const Knob& knob : knobs_) {
      std::uniform_int_distribution<size_t> pick(0, knob.values.size() - 1);
      c.knobs[knob.name] = knob.values[pick(rng)];
    }
    if (check_constraints(c).empty()) return c;
  }
  return default_config();
}

double ScheduleSpace::size() const {
  double n = 1;
  for (const Knob& knob : knobs_) n *= static_cast<double>(knob.values.size());
  return n;
}

std::vector<int64_t> values_up_to(std::vector<int64_t> values, int64_t limit) {
  std::vector<int64_t> kept;
  for (int64_t v : values) {
    if (v <= limit) kept.push_back(v);
  }
  if (kept.empty()) kept.push_back(*std::min_element(values.begin(), values.end()));
  return kept;
}

int64_t largest_value_up_to(const std::vector<Knob>& knobs, const std::string& name, int64_t wanted) {
  const auto knob = std::find_if(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.name == name; });
  if (knob == knobs.end()) throw Error("no knob named '" + name + "'");
  int64_t best = knob->values.front();
  for (int64_t v : knob->values) {
    if (v <= wanted) best = std::max(best, v);
  }
  return best;
}

// A tile that divides its loop needs no overlap, but a far smaller one costs more than
// the overlap (7-wide 1x1 convs got 1-column blocks: ResNet-50's 2048->512 at 7x7 ran
// 2609 us on one thread with 1 column, against 2134-2228 us with 6 columns and one
// overlapping; default points through nee-measure). Where no tile in range divides the
// loop, the least overlap wins: SqueezeNet's 13-wide planes took 8-column blocks (16
// columns computed) before 7-column ones (14).
int64_t fitting_tile(const std::vector<int64_t>& values, int64_t extent, int64_t limit) {
  int64_t best = 0, best_covered = 0, fallback = values.front();
  for (int64_t v : values) {
    if (v > limit) continue;
    fallback = std::max(fallback, v);
    if (2 * v < limit) continue;
    const int64_t covered = (extent + v - 1) / v * v;
    if (best == 0 || covered < best_covered || (covered == best_covered && v > best)) {
      best = v;
      best_covered = covered;
    }
  }
  return best ? best : fallback;
}

}  // namespace nee
