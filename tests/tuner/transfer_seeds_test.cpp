// Transfer seeding: similar workloads are found by shape, knobs map to the nearest value
// of this space's domains, every seed is a valid point, records of other machines
// seed but never count as measured here, and points measured here are left out.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/conv2d_workload.h"
#include "core/matmul_workload.h"
#include "temp_dir.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/search/transfer_seeds.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TuningRecord ok_record(const Workload& w, const Target& t, const ScheduleConfig& c, double us) {
  TuningRecord r;
  r.workload = w;
  r.target = t;
  r.config = c;
  r.result.status = MeasureStatus::ok;
  r.result.median_us = r.result.min_us = us;
  r.result.repeats = 3;
  r.strategy = "evolutionary";
  return r;
}

TEST(TransferSeeds, ShapeDistanceComparesOnlyLikeWorkloads) {
  const Workload w = matmul_workload_from_shape("128x256x512");
  EXPECT_EQ(shape_distance(w, w), 0.0);
  // M doubled: one of the four input dims (M, K, K, N) is 1 in log2.
  EXPECT_DOUBLE_EQ(*shape_distance(w, matmul_workload_from_shape("256x256x512")), 0.25);
  EXPECT_FALSE(shape_distance(w, matmul_workload_from_shape("1024x256x512"))) << "8x in M is not near";
  EXPECT_FALSE(shape_distance(w, matmul_workload_from_shape("2x128x256x512"))) << "another rank";
  MatmulAttrs trans_b;
  trans_b.trans_b = true;
  const TensorType b_transposed{DType::f32, {512, 256}};
  EXPECT_FALSE(shape_distance(w, make_matmul_workload(w.inputs[0], b_transposed, nullptr, trans_b)))
      << "another loop nest";
  EXPECT_FALSE(shape_distance(w, conv2d_workload_from_shape("1x8x8x8,8x3x3,p1"))) << "another family";
}

TEST(TransferSeeds, FusedEpiloguesDoNotMakeWorkloadsUnlike) {
  const Workload plain = matmul_workload_from_shape("128x256x512");
  MatmulAttrs gemm;
  gemm.relu = true;
  gemm.alpha = 0.5;
  const TensorType bias{DType::f32, {512}};
  EXPECT_EQ(shape_distance(plain, make_matmul_workload(plain.inputs[0], plain.inputs[1], &bias, gemm)), 0.0);

  const Workload conv = conv2d_workload_from_shape("1x64x28x28,128x1x1");
  Conv2dAttrs relu;
  relu.activation = ConvActivation::relu;
  const TensorType conv_bias{DType::f32, {128}}, residual{DType::f32, {1, 128, 28, 28}};
  const Workload with_bias = make_conv2d_workload(conv.inputs[0], conv.inputs[1], &conv_bias, nullptr, relu);
  const Workload with_residual = make_conv2d_workload(conv.inputs[0], conv.inputs[1], nullptr, &residual, {});
  EXPECT_EQ(shape_distance(conv, with_bias), 0.0);
  EXPECT_EQ(shape_distance(with_bias, with_residual), 0.0) << "a bias and a residual are both epilogue operands";
  // The input's channels doubled: 1 of the 8 dims of X and W in log2.
  const TensorType wide_x{DType::f32, {1, 128, 28, 28}}, wide_w{DType::f32, {128, 128, 1, 1}};
  EXPECT_DOUBLE_EQ(*shape_distance(with_bias, make_conv2d_workload(wide_x, wide_w, nullptr, nullptr, {})), 0.25);
  Conv2dAttrs strided;
  strided.strides = {2, 2};
  EXPECT_FALSE(shape_distance(conv, make_conv2d_workload(conv.inputs[0], conv.inputs[1], nullptr, nullptr, strided)))
      << "strides change the loop nest";
}

TEST(TransferSeeds, MapsEachKnobToTheNearestValueOfThisDomain) {
  const auto small = make_schedule_space(matmul_workload_from_shape("16x16x16"), TargetKind::cpu);
  const auto large = make_schedule_space(matmul_workload_from_shape("512x512x512"), TargetKind::cpu);
  std::mt19937_64 rng(3);
  int valid = 0;
  for (int i = 0; i < 200; ++i) {
    const ScheduleConfig source = large->random_config(rng);
    const ScheduleConfig mapped = map_into_space(source, *small);
    for (const Knob& k : small->knobs()) {
      const int64_t v = mapped.at(k.name), want = source.at(k.name);
      ASSERT_NE(std::find(k.values.begin(), k.values.end(), v), k.values.end()) << k.name;
      for (int64_t other : k.values) EXPECT_LE(std::abs(v - want), std::abs(other - want)) << k.name;
    }
    valid += small->check(mapped).empty();
  }
  EXPECT_GT(valid, 0);
  // A source without a knob of this space takes the default point's value.
  const ScheduleConfig from_nothing = map_into_space(ScheduleConfig{}, *small);
  EXPECT_EQ(from_nothing, small->default_config());
}

TEST(TransferSeeds, SeedsFromNearbyShapesAndOtherMachinesOnly) {
  TempDir dir("transfer");
  TuningDatabase db(dir.file("tuning.db"));
  const Target here = tuner_test::synthetic_target();
  Target elsewhere = here;
  elsewhere.device.cpu_model = "Another CPU";
  Target gpu = here;
  gpu.halide += "-cuda";
  const Workload target_w = matmul_workload_from_shape("256x256x256");
  const Workload near_w = matmul_workload_from_shape("128x256x256");
  const Workload far_w = matmul_workload_from_shape("16x256x4096");
  const auto near_space = make_schedule_space(near_w, TargetKind::cpu);
  const auto far_space = make_schedule_space(far_w, TargetKind::cpu);
  const auto space = make_schedule_space(target_w, TargetKind::cpu);

  std::mt19937_64 rng(5);
  std::vector<int64_t> near_ids, elsewhere_ids, measured_here_ids;
  for (int i = 0; i < 4; ++i) {
    const ScheduleConfig c = near_space->random_config(rng);
    near_ids.push_back(db.add_record(ok_record(near_w, here, c, tuner_test::synthetic_us(c))));
  }
  for (int i = 0; i < 4; ++i) {
    const ScheduleConfig c = space->random_config(rng);
    elsewhere_ids.push_back(db.add_record(ok_record(target_w, elsewhere, c, tuner_test::synthetic_us(c))));
  }
  db.add_record(ok_record(target_w, elsewhere, autoscheduler_config("Adams2019"), 1.0));
  for (int i = 0; i < 4; ++i) {
    const ScheduleConfig c = far_space->random_config(rng);
    db.add_record(ok_record(far_w, here, c, 1.0));  // fastest of all, but far
    db.add_record(ok_record(target_w, gpu, space->random_config(rng), 1.0));  // another kind of target
  }
  const ScheduleConfig here_point = space->random_config(rng);
  db.add_record(ok_record(target_w, here, here_point, 50.0));

  const auto measured_here = [&](const ScheduleConfig& c) { return db.contains(target_w, here, c); };
  const std::vector<TransferSeed> seeds = transfer_seeds(db, target_w, here, *space, 100, measured_here);
  ASSERT_FALSE(seeds.empty());
  std::set<ScheduleConfig> distinct;
  bool saw_elsewhere = false, saw_near = false;
  double previous_distance = 0;
  for (const TransferSeed& s : seeds) {
    EXPECT_EQ(space->check(s.config), "") << s.config.to_string();
    EXPECT_TRUE(distinct.insert(s.config).second);
    EXPECT_FALSE(db.contains(target_w, here, s.config)) << "measured here already";
    EXPECT_GE(s.distance, previous_distance) << "nearest first";
    previous_distance = s.distance;
    const bool from_elsewhere = s.source.workload.key() == target_w.key() && s.source.target.key() == elsewhere.key();
    const bool from_near = s.source.workload.key() == near_w.key() && s.source.target.key() == here.key();
    EXPECT_TRUE(from_elsewhere || from_near) << s.source.workload.key() << " on " << s.source.target.key();
    saw_elsewhere |= from_elsewhere;
    saw_near |= from_near;
    EXPECT_FALSE(autoscheduler_of(s.source.config));
  }
  EXPECT_TRUE(saw_elsewhere);
  EXPECT_TRUE(saw_near);
  // Another machine's records seed, but they are never this machine's measurements.
  EXPECT_EQ(db.best(target_w, here)->result.median_us, 50.0);
  EXPECT_EQ(transfer_seeds(db, target_w, here, *space, 2, measured_here).size(), 2u);

  // A cost model learns only from similar workloads' records measured on this machine.
  db.add_record(ok_record(near_w, here, autoscheduler_config("Adams2019"), 1.0));
  std::set<int64_t> learned;
  for (const TuningRecord& r : similar_records_here(db, target_w, here)) learned.insert(r.id);
  EXPECT_EQ(learned, std::set<int64_t>(near_ids.begin(), near_ids.end()));
}

}  // namespace
}  // namespace nee
