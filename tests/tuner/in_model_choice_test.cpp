// A tuned kernel that runs slower in the model than its default schedule goes back to the
// default: which kernels nee-tune's side-by-side model run finds slower
// (tuned_kernels_slower_in_model), and the bundle request that then builds their defaults
// whatever the database holds (BundleRequest::default_schedules).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "core/isa_level.h"
#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "synthetic_timing.h"
#include "temp_dir.h"
#include "tuner/cli/bundle_comparison.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using tuner_test::TempDir;

BundleKernelEntry entry(const Workload& w, const std::string& symbol, const std::string& source) {
  BundleKernelEntry e;
  e.workload = w;
  e.symbol = symbol;
  e.source = source;
  return e;
}

TEST(InModelChoice, TunedKernelsSlowerInTheModelByMoreThanTheMarginAreFound) {
  const Workload slower = matmul_workload_from_shape("8x16x16");
  const Workload close = matmul_workload_from_shape("8x16x32");
  const Workload untuned = matmul_workload_from_shape("8x32x16");
  const Workload unmeasured = matmul_workload_from_shape("16x16x16");
  BundleManifest m;
  BundleVariant high;
  high.isa = "avx2";
  high.kernels = {entry(slower, "k_slower", "tuned"), entry(close, "k_close", "tuned"),
                  entry(untuned, "k_untuned", "default"), entry(unmeasured, "k_unmeasured", "tuned")};
  BundleVariant low = high;
  low.isa = "sse41";
  for (BundleKernelEntry& k : low.kernels) k.symbol += "_low";
  m.variants = {low, high};

  BundleTimes t;
  t.first_kernel_us = {{"k_slower", 110}, {"k_close", 102}, {"k_untuned", 300}, {"k_slower_low", 500}};
  t.second_kernel_us = {{"k_slower", 100}, {"k_close", 100}, {"k_untuned", 100}, {"k_slower_low", 100},
                        {"k_unmeasured", 1}};
  EXPECT_EQ(tuned_kernels_slower_in_model(m, t, "avx2", 1.03), (std::set<std::string>{slower.key()}));
  EXPECT_EQ(tuned_kernels_slower_in_model(m, t, "avx2", 1.01), (std::set<std::string>{slower.key(), close.key()}));
  EXPECT_TRUE(tuned_kernels_slower_in_model(m, t, "avx2", 1.2).empty());
  EXPECT_TRUE(tuned_kernels_slower_in_model(m, t, "avx512_skylake", 1.03).empty()) << "no variant of that level";
}

TEST(InModelChoice, ABundleBuildsTheDefaultScheduleItIsToldToWhateverTheDatabaseHolds) {
  TempDir dir("in-model-choice");
  const Target target = host_target(TargetKind::cpu);
  const Workload w = matmul_workload_from_shape("8x16x16");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  std::mt19937_64 rng(11);
  ScheduleConfig tuned = space->random_config(rng);
  while (tuned == space->default_config()) tuned = space->random_config(rng);
  TuningDatabase db(dir.file("tuning.db"));
  TuningRecord r;
  r.workload = w;
  r.target = target;
  r.config = tuned;
  r.result = tuner_test::ok_result(5);
  r.confirmed_us = 5;
  r.strategy = "random";
  db.add_record(r);

  BundleRequest request;
  request.workloads = {w};
  request.target = target;
  request.isa_levels = {host_isa_level().name};
  request.output_dir = dir.file("bundle");
  const auto host_kernel = [&] { return build_bundle(&db, request).variants.at(0).kernels.at(0); };
  const BundleKernelEntry from_db = host_kernel();
  EXPECT_EQ(from_db.source, "tuned");
  EXPECT_EQ(from_db.schedule, tuned);

  request.default_schedules["sse41"] = {w.key()};
  EXPECT_EQ(host_kernel().source, "tuned") << "another level's defaults";
  request.default_schedules[host_isa_level().name] = {w.key()};
  const BundleKernelEntry forced = host_kernel();
  EXPECT_EQ(forced.source, "default");
  EXPECT_EQ(forced.schedule, space->default_config());
  EXPECT_FALSE(forced.record_id.has_value());
}

}  // namespace
}  // namespace nee
