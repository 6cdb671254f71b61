// The registry of operator families, checked row by row for every family of
// NEE_FAMILIES: a family added to the list without a working row in some layer fails
// here by name. Each family's sample workload round-trips through text, has its figures
// set, has valid random points in its CPU and GPU spaces, and is tuned by the real
// `nee-tune --op NAME --shape TEXT` on the CPU and on OpenCL (PoCL): its default point
// builds, nee-measure verifies it against the family's reference on random inputs and
// stores a record, which then round-trips through the database and a bundle manifest.
#include <map>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/family.h"
#include "core/subprocess.h"
#include "runtime/bundle/bundle_abi.h"
#include "runtime/bundle/bundle_manifest.h"
#include "schedules/schedule_space.h"
#include "tests/tuner/temp_dir.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

// One small workload per family, as `nee-tune --op NAME --shape` takes it: small enough
// that its default point compiles and runs in seconds.
const std::map<std::string, std::string>& sample_shapes() {
  static const std::map<std::string, std::string> shapes = {
      {"matmul", "64x48x32"},
      {"conv2d", "1x16x12x12,16x3x3,p1"},
      {"elementwise", "8x32+32:add(x0,x1); relu(t0)"},
      {"pool2d", "1x8x12x12,kernel=3x3,strides=2x2,pads=1x1x1x1,kind=average"},
      {"softmax", "16x40"},
      {"layernorm", "16x64"},
      {"strided_copy", "16x8x12,perm=2x0x1"},
      {"attention", "4x24x24x16,layout=sgd,mask=causal"},
      {"resize", "1x4x6x10,size=13x20"},
  };
  return shapes;
}

class FamilyRegistry : public ::testing::TestWithParam<std::string> {
 protected:
  const Family& family() const { return family_named(GetParam()); }
  Workload sample() const {
    const auto it = sample_shapes().find(GetParam());
    if (it == sample_shapes().end()) {
      ADD_FAILURE() << "family " << GetParam() << " has no sample shape in family_registry_test.cpp";
      return {};
    }
    return family().from_shape(it->second);
  }
};

TEST_P(FamilyRegistry, HasASampleThatIsItsOwn) {
  ASSERT_EQ(sample_shapes().count(GetParam()), 1u) << "add a sample shape for " << GetParam();
  EXPECT_EQ(sample().op, GetParam());
  EXPECT_EQ(&family_of(sample()), &family());
}

TEST_P(FamilyRegistry, AttributesRoundTripThroughText) {
  const Workload w = sample();
  const Workload back = Workload::from_json(nlohmann::json::parse(w.to_json().dump()));
  EXPECT_EQ(back.key(), w.key());
  EXPECT_EQ(back.hash(), w.hash());
  EXPECT_EQ(back.attrs_json(), w.attrs_json());
}

// A record or manifest of a later NEE whose attributes this one does not know is refused
// by name, never read with the unknown attribute dropped.
TEST_P(FamilyRegistry, UnknownAttributesAreRefused) {
  nlohmann::json j = sample().to_json();
  j["attrs"]["later_knob"] = 1;
  try {
    Workload::from_json(j);
    ADD_FAILURE() << "an unknown attribute was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("are not all ones this NEE reads"), std::string::npos) << e.what();
  }
}

// A family that computes reports GFLOP/s and has rounding to allow for; one bound by
// moving data reports GB/s, and where it computes nothing (a copy) must match the
// reference exactly, while an interpolation (resize) rounds like any sum.
TEST_P(FamilyRegistry, FiguresAndToleranceAreSet) {
  const Workload w = sample();
  if (family().speed_unit == SpeedUnit::gflops) {
    EXPECT_GT(w.flops(), 0);
    EXPECT_GE(family().reduction_length(w), 1);
  } else {
    EXPECT_EQ(w.flops() == 0, family().reduction_length(w) == 0);
  }
  EXPECT_FALSE(family().shape_help.empty());
  EXPECT_LE(family().loop_nest_inputs, w.inputs.size());
}

TEST_P(FamilyRegistry, RandomPointsAreValidOnCpuAndGpu) {
  const Workload w = sample();
  std::mt19937_64 rng(7);
  for (TargetKind kind : {TargetKind::cpu, TargetKind::opencl, TargetKind::cuda}) {
    const auto space = make_schedule_space(w, kind);
    EXPECT_EQ(space->check(space->default_config()), "") << to_string(kind);
    for (int i = 0; i < 10; ++i) {
      const ScheduleConfig c = space->random_config(rng);
      EXPECT_EQ(space->check(c), "") << to_string(kind) << " " << c.to_string();
      EXPECT_NO_THROW(space->schedule(c)) << to_string(kind) << " " << c.to_string();
    }
  }
}

// The real command line, on the CPU and through PoCL: the default point is built,
// verified by nee-measure against the reference and stored.
TEST_P(FamilyRegistry, TunedByNeeTuneOnCpuAndOpenCl) {
  const tuner_test::TempDir dir("registry_" + GetParam());
  const std::string db_path = dir.file("tuning.db");
  for (const char* target : {"cpu", "opencl"}) {
    const ProcessResult run =
        run_process({NEE_TUNE_PATH, "--op", GetParam(), "--shape", sample_shapes().at(GetParam()), "--target", target,
                     "--trials", "1", "--no-baselines", "--confirm", "0", "--jobs", "1", "--seed", "1", "--db",
                     db_path, "--work-dir", dir.file(std::string("work_") + target)},
                    240, true);
    ASSERT_TRUE(run.exited && run.exit_code == 0) << target << ":\n" << run.output;
  }
  TuningDatabase db(db_path);
  std::map<TargetKind, int> verified;
  BundleManifest manifest;
  BundleVariant variant;
  for (const TuningRecord& r : db.all_records()) {
    EXPECT_EQ(r.workload.op, GetParam());
    EXPECT_EQ(r.result.status, MeasureStatus::ok) << r.result.error;
    if (r.result.status != MeasureStatus::ok) continue;
    EXPECT_LE(r.result.max_abs_error, 2e-6 * static_cast<double>(family().reduction_length(r.workload)) +
                                          1e-5)
        << "a record's error must be within the check's tolerance";
    ++verified[r.target.kind()];
    const std::optional<TuningRecord> best = db.best(r.workload, r.target);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->workload.key(), r.workload.key());
    variant.kernels.push_back({r.workload, "nee_kernel", "tuned", r.id, r.config, r.result.median_us});
  }
  EXPECT_GE(verified[TargetKind::cpu], 1);
  EXPECT_GE(verified[TargetKind::opencl], 1);

  manifest.nee_version = NEE_VERSION;
  manifest.abi_version = NEE_BUNDLE_ABI_VERSION;
  variant.isa = "x86_64";
  // A manifest names each library by a plain file name with its sha256 (64 hex digits).
  variant.library_file = "kernels-x86_64.so";
  variant.library_sha256 = std::string(64, 'a');
  manifest.variants.push_back(variant);
  const BundleManifest back = BundleManifest::from_json(nlohmann::json::parse(manifest.to_json().dump()));
  ASSERT_EQ(back.variants.size(), 1u);
  ASSERT_EQ(back.variants[0].kernels.size(), variant.kernels.size());
  for (size_t i = 0; i < variant.kernels.size(); ++i) {
    EXPECT_EQ(back.variants[0].kernels[i].workload.key(), variant.kernels[i].workload.key());
    EXPECT_EQ(back.variants[0].kernels[i].schedule, variant.kernels[i].schedule);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, FamilyRegistry, ::testing::ValuesIn(family_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace nee
