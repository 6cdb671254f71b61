#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "core/records.h"
#include "schedules/schedule_space.h"
#include "tuning-db/tuning_database.h"

namespace nee {

// A point for this workload's space taken from a record measured for a similar workload
// (same family, attributes, ranks and dtypes, nearby shapes) or for the same workload on
// another machine of the same target kind. It is only a proposal: it counts once
// measured here.
struct TransferSeed {
  ScheduleConfig config;  // mapped into this workload's space; valid
  TuningRecord source;
  double distance = 0;    // shape_distance() of the source's workload
};

// Mean of |log2(a / b)| over every dimension of the main inputs (see below) of two
// workloads of the same family, loop-nest attributes, ranks and dtypes; nullopt when
// they differ in any of those or when an extent differs by more than 4x (a kernel tuned
// 4x away in one dimension rarely shares its best tiling).
// A fused epilogue (conv2d's bias, residual and activation; matmul's alpha, beta, bias,
// Relu and GELU; LayerNorm's bias and epsilon) runs once per output element after the
// loop nest that a schedule tiles, so workloads that differ only there are alike, and
// their epilogue operands (bias, residual, LayerNorm's scale and bias) are not compared:
// ResNet-50's projection convs (no activation) take seeds from its Relu convs.
std::optional<double> shape_distance(const Workload& a, const Workload& b);

// Each knob of `space` takes the value of the source's knob of that name nearest in
// its domain (ties to the smaller value), or the default point's value when the source
// lacks the knob. The result may violate the space's constraints: check() it.
ScheduleConfig map_into_space(const ScheduleConfig& source, const ScheduleSpace& space);

// Up to `max_seeds` distinct valid points, nearest workloads first, from the `per_source`
// fastest ok records of each similar workload on every target of `target`'s kind. The
// records of this workload on this very target are left out (the search already
// observes them), and so is every point for which `measured_here` is true: a point is
// never measured twice.
std::vector<TransferSeed> transfer_seeds(const TuningDatabase& db, const Workload& workload, const Target& target,
                                         const ScheduleSpace& space, int max_seeds,
                                         const std::function<bool(const ScheduleConfig&)>& measured_here,
                                         int per_source = 3);

// Every ok record, baselines aside, of the workloads similar to `workload` (shape_distance
// defined) measured on this very target, for a cost model to learn from before this
// workload has any result. Records of other machines are left out: their times are not
// this machine's.
std::vector<TuningRecord> similar_records_here(const TuningDatabase& db, const Workload& workload,
                                               const Target& target);

}  // namespace nee
