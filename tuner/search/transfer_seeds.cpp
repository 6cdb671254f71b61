#include "tuner/search/transfer_seeds.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "core/family.h"
#include "tuner/compile/autoscheduler_config.h"

namespace nee {

namespace {

// An extent ratio beyond 4x (log2 2) makes two workloads dissimilar.
constexpr double kMaxLog2Ratio = 2.0;

// The attributes without those of the family's fused epilogue.
nlohmann::json loop_nest_attrs(const Workload& w, const Family& family) {
  nlohmann::json attrs = w.attrs_json();
  for (const std::string& name : family.epilogue_attrs) attrs.erase(name);
  return attrs;
}

struct Source {
  double distance;
  Workload workload;
  Target target;
};

}  // namespace

std::optional<double> shape_distance(const Workload& a, const Workload& b) {
  if (a.op != b.op) return std::nullopt;
  const Family& family = family_of(a);
  if (loop_nest_attrs(a, family) != loop_nest_attrs(b, family)) return std::nullopt;
  const bool whole = family.loop_nest_inputs == 0;  // every input feeds the loop nest
  const size_t main_inputs = whole ? a.inputs.size() : family.loop_nest_inputs;
  if (a.inputs.size() < main_inputs || b.inputs.size() < main_inputs) return std::nullopt;
  if (whole && a.inputs.size() != b.inputs.size()) return std::nullopt;
  if (a.output.dtype != b.output.dtype || a.output.shape.size() != b.output.shape.size()) return std::nullopt;
  double sum = 0;
  int dims = 0;
  for (size_t i = 0; i < main_inputs; ++i) {
    const TensorType &x = a.inputs[i], &y = b.inputs[i];
    if (x.dtype != y.dtype || x.shape.size() != y.shape.size()) return std::nullopt;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (x.shape[d] <= 0 || y.shape[d] <= 0) return std::nullopt;
      const double log_ratio = std::abs(std::log2(static_cast<double>(x.shape[d]) / static_cast<double>(y.shape[d])));
      if (log_ratio > kMaxLog2Ratio) return std::nullopt;
      sum += log_ratio;
      ++dims;
    }
  }
  return dims ? sum / dims : 0.0;
}

ScheduleConfig map_into_space(const ScheduleConfig& source, const ScheduleSpace& space) {
  const ScheduleConfig fallback = space.default_config();
  ScheduleConfig mapped;
  for (const Knob& knob : space.knobs()) {
    const auto it = source.knobs.find(knob.name);
    if (it == source.knobs.end()) {
      mapped.knobs[knob.name] = fallback.at(knob.name);
      continue;
    }
    int64_t nearest = knob.values.front();
    for (int64_t v : knob.values) {
      const int64_t d = std::abs(v - it->second), best = std::abs(nearest - it->second);
      if (d < best || (d == best && v < nearest)) nearest = v;
    }
    mapped.knobs[knob.name] = nearest;
  }
  return mapped;
}

namespace {

// A mapped point this space rejects (a constraint the source's shape met and this one
// does not, such as enough parallel tasks) takes one knob from this space's default
// point: the first that makes it valid, so the rest of the source's choices survive.
ScheduleConfig repaired(ScheduleConfig c, const ScheduleSpace& space) {
  if (space.check(c).empty()) return c;
  const ScheduleConfig fallback = space.default_config();
  for (const Knob& knob : space.knobs()) {
    ScheduleConfig attempt = c;
    attempt.knobs[knob.name] = fallback.at(knob.name);
    if (space.check(attempt).empty()) return attempt;
  }
  return c;
}

}  // namespace

std::vector<TransferSeed> transfer_seeds(const TuningDatabase& db, const Workload& workload, const Target& target,
                                         const ScheduleSpace& space, int max_seeds,
                                         const std::function<bool(const ScheduleConfig&)>& measured_here,
                                         int per_source) {
  std::vector<Source> sources;
  const std::string here = target.key(), key = workload.key();
  for (const Target& t : db.targets()) {
    if (t.kind() != target.kind()) continue;
    for (const TuningDatabase::WorkloadSummary& s : db.workloads(t)) {
      if (s.ok_records == 0 || (t.key() == here && s.workload.key() == key)) continue;
      if (const std::optional<double> d = shape_distance(workload, s.workload)) sources.push_back({*d, s.workload, t});
    }
  }
  // Nearest first; at equal distance, records measured on this machine first.
  std::stable_sort(sources.begin(), sources.end(), [&](const Source& a, const Source& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    return (a.target.key() == here) > (b.target.key() == here);
  });
  std::vector<TransferSeed> seeds;
  std::set<ScheduleConfig> taken;
  for (const Source& source : sources) {
    for (TuningRecord& r : db.top_k(source.workload, source.target, per_source)) {
      if (static_cast<int>(seeds.size()) >= max_seeds) return seeds;
      if (autoscheduler_of(r.config)) continue;  // a baseline holds no point of any space
      ScheduleConfig c = repaired(map_into_space(r.config, space), space);
      if (!space.check(c).empty() || taken.count(c) || measured_here(c)) continue;
      taken.insert(c);
      seeds.push_back({std::move(c), std::move(r), source.distance});
    }
  }
  return seeds;
}

std::vector<TuningRecord> similar_records_here(const TuningDatabase& db, const Workload& workload,
                                               const Target& target) {
  std::vector<TuningRecord> records;
  const std::string key = workload.key();
  for (const TuningDatabase::WorkloadSummary& s : db.workloads(target)) {
    if (s.ok_records == 0 || s.workload.key() == key || !shape_distance(workload, s.workload)) continue;
    for (TuningRecord& r : db.history(s.workload, target)) {
      if (r.result.status == MeasureStatus::ok && !autoscheduler_of(r.config)) records.push_back(std::move(r));
    }
  }
  return records;
}

}  // namespace nee
