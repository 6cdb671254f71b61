// A tuned kernel that runs slower in the model than its default schedule goes back to the
// default: which kernels nee-tune's side-by-side model run times (tuned_kernels_in_model),
// the times a record keeps (TuningDatabase::set_in_model_times), and the bundle that then
// builds the default schedule until a better record is found.
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

BundleKernelEntry entry(const Workload& w, const std::string& symbol, const std::string& source,
                        std::optional<int64_t> record_id) {
  BundleKernelEntry e;
  e.workload = w;
  e.symbol = symbol;
  e.source = source;
  e.record_id = record_id;
  return e;
}

TEST(InModelChoice, TheTunedKernelsOfOneLevelAreTimedAgainstTheOtherBundles) {
  const Workload timed = matmul_workload_from_shape("8x16x16");
  const Workload untuned = matmul_workload_from_shape("8x32x16");
  const Workload unmeasured = matmul_workload_from_shape("16x16x16");
  BundleManifest m;
  BundleVariant high;
  high.isa = "avx2";
  high.kernels = {entry(timed, "k_timed", "tuned", 7), entry(untuned, "k_untuned", "default", std::nullopt),
                  entry(unmeasured, "k_unmeasured", "tuned", 9)};
  BundleVariant low = high;
  low.isa = "sse41";
  for (BundleKernelEntry& k : low.kernels) {
    k.symbol += "_low";
    if (k.record_id) *k.record_id += 100;
  }
  m.variants = {low, high};

  BundleTimes t;
  t.first_kernel_us = {{"k_timed", 110}, {"k_untuned", 300}, {"k_timed_low", 500}};
  t.second_kernel_us = {{"k_timed", 100}, {"k_untuned", 100}, {"k_timed_low", 100}, {"k_unmeasured", 1}};
  const std::map<int64_t, InModelTimes> high_times = tuned_kernels_in_model(m, t, "avx2");
  ASSERT_EQ(high_times.size(), 1u);
  EXPECT_EQ(high_times.at(7).tuned_us, 110);
  EXPECT_EQ(high_times.at(7).default_us, 100);
  const std::map<int64_t, InModelTimes> low_times = tuned_kernels_in_model(m, t, "sse41");
  ASSERT_EQ(low_times.size(), 1u);
  EXPECT_EQ(low_times.at(107).tuned_us, 500);
  EXPECT_TRUE(tuned_kernels_in_model(m, t, "avx512_skylake").empty()) << "no variant of that level";
}

TEST(InModelChoice, OnlyARecordSlowerByMoreThanTheMarginCountsAsSlower) {
  TuningRecord r;
  EXPECT_FALSE(r.slower_in_model()) << "never timed in a model";
  r.in_model = InModelTimes{102, 100};
  EXPECT_FALSE(r.slower_in_model());
  r.in_model = InModelTimes{100 * kInModelMargin * 1.001, 100};
  EXPECT_TRUE(r.slower_in_model());
  r.in_model = InModelTimes{80, 100};
  EXPECT_FALSE(r.slower_in_model());
}

TEST(InModelChoice, ARecordSlowerInTheModelIsBuiltAsTheDefaultUntilABetterOneIsFound) {
  TempDir dir("in-model-choice");
  const Target target = host_target(TargetKind::cpu);
  const Workload w = matmul_workload_from_shape("8x16x16");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  std::mt19937_64 rng(11);
  const auto other_point = [&](const std::vector<ScheduleConfig>& taken) {
    ScheduleConfig c = space->random_config(rng);
    while (std::find(taken.begin(), taken.end(), c) != taken.end()) c = space->random_config(rng);
    return c;
  };
  const ScheduleConfig tuned = other_point({space->default_config()});
  TuningDatabase db(dir.file("tuning.db"));
  const auto add = [&](const ScheduleConfig& config, double us) {
    TuningRecord r;
    r.workload = w;
    r.target = target;
    r.config = config;
    r.result = tuner_test::ok_result(us);
    r.confirmed_us = us;
    r.strategy = "random";
    return db.add_record(r);
  };
  const int64_t first = add(tuned, 5);

  BundleRequest request;
  request.workloads = {w};
  request.target = target;
  request.isa_levels = {host_isa_level().name};
  request.output_dir = dir.file("bundle");
  const auto host_kernel = [&] { return build_bundle(&db, request).variants.at(0).kernels.at(0); };
  const BundleKernelEntry from_db = host_kernel();
  EXPECT_EQ(from_db.source, "tuned");
  EXPECT_EQ(from_db.schedule, tuned);

  db.set_in_model_times(first, {101, 100});
  EXPECT_EQ(host_kernel().source, "tuned") << "within the margin";
  db.set_in_model_times(first, {120, 100});
  ASSERT_TRUE(db.best(w, target)->slower_in_model());
  EXPECT_EQ(db.best(w, target)->id, first) << "the search's ranking is the kernel's own";
  const BundleKernelEntry went_back = host_kernel();
  EXPECT_EQ(went_back.source, "default");
  EXPECT_EQ(went_back.schedule, space->default_config());
  EXPECT_FALSE(went_back.record_id.has_value());

  const ScheduleConfig better = other_point({space->default_config(), tuned});
  const int64_t second = add(better, 4);
  const BundleKernelEntry new_best = host_kernel();
  EXPECT_EQ(new_best.source, "tuned") << "a better record is not judged by the one before";
  EXPECT_EQ(new_best.record_id, second);
}

TEST(InModelChoice, InModelTimesAreRefusedWhenNotPositiveOrForNoRecord) {
  TempDir dir("in-model-times");
  TuningDatabase db(dir.file("tuning.db"));
  TuningRecord r;
  r.workload = matmul_workload_from_shape("8x16x16");
  r.target = host_target(TargetKind::cpu);
  r.config = make_schedule_space(r.workload, TargetKind::cpu)->default_config();
  r.result = tuner_test::ok_result(5);
  r.strategy = "default";
  const int64_t id = db.add_record(r);
  EXPECT_THROW(db.set_in_model_times(id, {0, 100}), Error);
  EXPECT_THROW(db.set_in_model_times(id, {100, std::nan("")}), Error);
  EXPECT_THROW(db.set_in_model_times(id + 1, {100, 100}), Error);
  EXPECT_FALSE(db.history(r.workload, r.target).at(0).in_model.has_value()) << "a refused time stores nothing";
  db.set_in_model_times(id, {90, 100});
  const TuningRecord stored = db.history(r.workload, r.target).at(0);
  ASSERT_TRUE(stored.in_model.has_value());
  EXPECT_EQ(stored.in_model->tuned_us, 90);
  EXPECT_EQ(stored.in_model->default_us, 100);
}

}  // namespace
}  // namespace nee
