// The family table: one row per family of NEE_FAMILIES, in its order, and `nee-tune
// --op`'s families parse their shape texts into workloads of their own family.
#include "core/family.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace nee {
namespace {

TEST(Family, RowsFollowTheListAndNameTheirOps) {
  ASSERT_EQ(families().size(), kFamilyCount);
  for (size_t i = 0; i < families().size(); ++i) {
    const Family& f = families()[i];
    EXPECT_EQ(static_cast<size_t>(f.id), i) << f.name;
    EXPECT_EQ(&family_named(f.name), &f);
    EXPECT_TRUE(f.flops && f.reduction_length) << f.name;
    EXPECT_EQ(f.from_shape == nullptr, f.shape_help.empty()) << f.name << ": a shape parser comes with its help";
    EXPECT_LE(f.loop_nest_inputs, 2u) << f.name;
  }
}

TEST(Family, UnknownFamiliesAreRefusedWithTheKnownOnes) {
  Workload w;
  w.op = "attention";
  try {
    family_of(w);
    ADD_FAILURE() << "an unknown family was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown operator family 'attention' (known: matmul, conv2d, elementwise"),
              std::string::npos)
        << e.what();
  }
}

// Each family --op tunes: an example shape text gives a workload of that family whose
// figures are those of the shape (FLOPs, reduction length, speed unit).
TEST(Family, ShapeTextsGiveWorkloadsOfTheirFamily) {
  EXPECT_EQ(families_tuned_alone(), (std::vector<std::string>{"matmul", "conv2d", "strided_copy"}));

  const Workload mm = family_named("matmul").from_shape("64x32x16");
  EXPECT_EQ(mm.op, "matmul");
  EXPECT_DOUBLE_EQ(mm.flops(), 2.0 * 64 * 32 * 16);
  EXPECT_EQ(family_of(mm).reduction_length(mm), 32);
  EXPECT_EQ(family_of(mm).speed_unit, SpeedUnit::gflops);

  const Workload conv = family_named("conv2d").from_shape("1x8x10x10,4x3x3,p1");
  EXPECT_EQ(conv.op, "conv2d");
  EXPECT_DOUBLE_EQ(conv.flops(), 2.0 * 4 * 10 * 10 * 8 * 9);
  EXPECT_EQ(family_of(conv).reduction_length(conv), 8 * 9);

  const Workload copy = family_named("strided_copy").from_shape("4x6,perm=1x0");
  EXPECT_EQ(copy.op, "strided_copy");
  EXPECT_EQ(copy.flops(), 0.0);
  EXPECT_EQ(family_of(copy).reduction_length(copy), 0);
  EXPECT_EQ(family_of(copy).speed_unit, SpeedUnit::gbytes);
}

}  // namespace
}  // namespace nee
