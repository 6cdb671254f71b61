#pragma once
#include <string>

#include "importer/import_onnx.h"
#include "tuner/cli/bundle_comparison.h"
#include "tuner/compile/bundle_builder.h"
#include "tuning-db/tuning_database.h"

namespace nee {

// The bundle a model's tuning run ends with, and the whole model timed on it against a
// bundle of default schedules (the summary's model time is a sum of kernels timed alone).
// Under --time the run's budget holds this stage too: prepare(), called before the search,
// does the stage's slow part then and measures what is left (EfficientNet-B0 and
// MobileNetV3 went 1-2 minutes past `--time 20m` when it came after the budget).
class BundleStage {
 public:
  // `timing_runs`: runs of the model on each bundle (0: no timing); `scratch`: a folder
  // of this run's own for the default bundle.
  BundleStage(BundleRequest request, InputShapes shapes, int timing_runs, std::string scratch);

  // Compiles every object the bundle will link as the database stands (a kernel the
  // search then improves is linked from the object the search measured), builds the
  // default bundle and runs the model once on it. Returns the seconds finish() is
  // expected to take: the bundle's build with every object compiled, timed by building
  // it once here, and the timing runs at the pace of that one run, both twice (finish()
  // builds and times again where kernels go back to their defaults).
  double prepare(const TuningDatabase& db);

  // Builds the bundle and prints its levels; then, where `time_it`, builds the default
  // bundle if prepare() did not, times the model on both, alternating, and prints that.
  // Kernels are timed alone, cold, while tuning: each tuned kernel of the host's level is
  // timed in the model too (the median over the runs of its nodes' times) and its record
  // keeps that against the default's (TuningDatabase::set_in_model_times). Where one ran
  // slower by more than kInModelMargin, the bundle is built again, with that workload's
  // default schedule, and timed again; later bundles of the database do the same.
  void finish(TuningDatabase& db, bool time_it);

 private:
  void build_default_bundle();

  BundleRequest request_;
  BundleRequest default_request_;
  InputShapes shapes_;
  int timing_runs_;
  bool default_built_ = false;
};

}  // namespace nee
