// The strided_copy kernels (Transpose and Slice), compiled by the Builder into shared
// libraries (the default schedule, two seeded random valid points and, for transposes,
// the staged tile) and called through HalideKernel, against compute_reference at awkward
// shapes; OpenCL kernels (default, staged and unstaged, random points) go through
// nee-measure, the only process where PoCL may run, and a staged CUDA transpose is
// compiled. A copy must be exact: every check allows no error at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "core/strided_copy_workload.h"
#include "core/workload_speed.h"
#include "runtime/reference/family_reference.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using test::CompiledKernels;
using test::Tolerance;

constexpr Tolerance kExact{0.0, 0.0};

TensorType f32(std::vector<int64_t> shape) { return TensorType{DType::f32, std::move(shape)}; }

std::map<std::string, Workload> cases() {
  std::map<std::string, Workload> all;
  // Attention's head split keeps the innermost dim: rows of 13.
  all["transpose_0213"] = strided_copy_workload_from_shape("1x7x3x13,perm=0x2x1x3");
  // Attention's key transpose moves the innermost dim: 2-D tiles.
  all["transpose_0231"] = strided_copy_workload_from_shape("1x7x3x13,perm=0x2x3x1");
  all["transpose_2d_odd"] = strided_copy_workload_from_shape("13x9,perm=1x0");
  all["transpose_rank5"] = strided_copy_workload_from_shape("2x3x5x7x4,perm=3x0x4x1x2");
  // Output rows of 1 and 2 elements: tiles no wider than the row.
  all["transpose_to_column"] = strided_copy_workload_from_shape("1x3x5,perm=2x1x0");
  all["transpose_to_pairs"] = strided_copy_workload_from_shape("2x7,perm=1x0");
  all["slice_step2_start"] = strided_copy_workload_from_shape("3x17x11,starts=1x3x0,steps=1x2x1");
  all["slice_last_axis"] = strided_copy_workload_from_shape("5x37,starts=0x5,ends=5x30");
  all["slice_rank1_step3"] = strided_copy_workload_from_shape("29,starts=2,steps=3,ends=28");
  // A transpose of a strided slice: both at once.
  all["transposed_slice"] = make_strided_copy_workload(f32({20, 15}), StridedCopyAttrs{{1, 0}, {2, 1}, {2, 1}}, {14, 9});
  return all;
}

const char* const kTransposes[] = {"transpose_0231", "transpose_2d_odd", "transposed_slice"};
const char* const kOpenClCases[] = {"transpose_0213",      "transpose_0231",    "transpose_2d_odd",
                                    "transpose_rank5",     "transpose_to_column", "slice_step2_start",
                                    "slice_last_axis",     "slice_rank1_step3"};

class StridedCopyKernel : public test::CompiledKernelsTest<StridedCopyKernel> {
 public:
  static constexpr char kWorkDirTag[] = "stridedcopy";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    const Target opencl = host_target(TargetKind::opencl);
    std::mt19937_64 rng(2031);
    const auto all = cases();
    for (const auto& [name, w] : all) kernels.add_points(name, w, cpu, 2, rng);
    for (const char* name : kTransposes) {
      kernels.add_changed_default(name, "staged", all.at(name), cpu, {{"stage", 1}});
      kernels.add_changed_default(name, "unstaged", all.at(name), cpu, {{"stage", 0}});
    }
    for (const char* name : kOpenClCases) {
      kernels.add_default(std::string("opencl/") + name, all.at(name), opencl);
    }
    // 8 x 8 tiles, staged through shared memory and not; and random points.
    const Workload& odd = all.at("transpose_2d_odd");
    for (int64_t stage : {0, 1}) {
      ScheduleConfig c;
      c.knobs = {{"threads_x", 8}, {"threads_y", 4}, {"rows_per_thread", 2}, {"stage", stage}};
      kernels.add("opencl/transpose_2d_odd/stage" + std::to_string(stage), Candidate{odd, opencl, c, "hand", 0, {}});
    }
    for (const char* name : {"transpose_0231", "transpose_rank5", "transposed_slice"}) {
      const auto space = make_schedule_space(all.at(name), TargetKind::opencl);
      for (int i = 0; i < 2; ++i) {
        kernels.add(std::string("opencl/") + name + "/random" + std::to_string(i),
                    Candidate{all.at(name), opencl, space->random_config(rng), "random", 0, {}});
      }
    }
  }
};

TEST_F(StridedCopyKernel, AttentionHeadSplitTranspose) { kernels().check_points("transpose_0213", kExact); }
TEST_F(StridedCopyKernel, AttentionKeyTranspose) { kernels().check_points("transpose_0231", kExact); }
TEST_F(StridedCopyKernel, TransposeOfOddExtents) { kernels().check_points("transpose_2d_odd", kExact); }
TEST_F(StridedCopyKernel, Rank5Permutation) { kernels().check_points("transpose_rank5", kExact); }
TEST_F(StridedCopyKernel, TransposeToNarrowRows) {
  kernels().check_points("transpose_to_column", kExact);
  kernels().check_points("transpose_to_pairs", kExact);
}
TEST_F(StridedCopyKernel, SliceWithStep2AndNonZeroStarts) { kernels().check_points("slice_step2_start", kExact); }
TEST_F(StridedCopyKernel, SliceOfTheLastAxis) { kernels().check_points("slice_last_axis", kExact); }
TEST_F(StridedCopyKernel, Rank1SliceWithStep3) { kernels().check_points("slice_rank1_step3", kExact); }
TEST_F(StridedCopyKernel, TransposedStridedSlice) { kernels().check_points("transposed_slice", kExact); }

TEST_F(StridedCopyKernel, CpuKernelsVerifiedByNeeMeasure) {
  for (const char* name : kTransposes) {
    const MeasureResult r = kernels().measure(std::string(name) + "/staged");
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_EQ(r.max_abs_error, 0) << name;
    EXPECT_GT(r.median_us, 0) << name;
  }
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner,
// which checks every output element against compute_reference.
TEST_F(StridedCopyKernel, OpenClKernelsVerifiedByNeeMeasure) {
  std::vector<std::string> names;
  for (const char* name : kOpenClCases) names.push_back(std::string("opencl/") + name);
  for (const char* name : {"opencl/transpose_2d_odd/stage0", "opencl/transpose_2d_odd/stage1"}) names.push_back(name);
  for (const char* name : {"transpose_0231", "transpose_rank5", "transposed_slice"}) {
    for (int i = 0; i < 2; ++i) names.push_back(std::string("opencl/") + name + "/random" + std::to_string(i));
  }
  for (const std::string& name : names) {
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << " [" << kernels().get(name).candidate.config.to_string()
                                         << "]: " << r.error;
    EXPECT_EQ(r.max_abs_error, 0) << name;
  }
}

// No GPU here: the staged transpose must at least lower to CUDA (PTX in an object).
TEST(StridedCopyKernelCuda, StagedTransposeCompilesToAnObject) {
  const tuner_test::TempDir dir("copycuda");
  const Workload w = strided_copy_workload_from_shape("128x4x64,perm=1x2x0");
  const ScheduleConfig c = make_schedule_space(w, TargetKind::cuda)->default_config();
  ASSERT_EQ(c.at("stage"), 1);
  const std::string object = dir.file("kernel.o");
  const Target cuda = host_target(TargetKind::cuda);
  ASSERT_NO_THROW(compile_kernel_object(w, cuda, c, Builder::symbol_for(w, cuda), object));
  EXPECT_GT(std::filesystem::file_size(object), 1000u);
}

// The reference the kernels are checked against, on values written out by hand.
TEST(StridedCopyReference, TransposesAndSlicesByHand) {
  Tensor x(f32({2, 3}));
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = static_cast<float>(i + 1);  // [[1,2,3],[4,5,6]]
  const auto values = [&](const Workload& w) {
    Tensor out(w.output);
    compute_reference(w, {&x}, out);
    return std::vector<float>(out.data_as<float>(), out.data_as<float>() + out.elements());
  };
  EXPECT_EQ(values(strided_copy_workload_from_shape("2x3,perm=1x0")), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(values(strided_copy_workload_from_shape("2x3,starts=1x0,steps=1x2")), (std::vector<float>{4, 6}));
  // Columns 1 and 2 of both rows, transposed.
  EXPECT_EQ(values(make_strided_copy_workload(f32({2, 3}), StridedCopyAttrs{{1, 0}, {0, 1}, {1, 1}}, {2, 2})),
            (std::vector<float>{2, 5, 3, 6}));
}

TEST(StridedCopyWorkload, ValidatesItsAttributes) {
  const auto attrs = [](std::vector<int64_t> perm, std::vector<int64_t> starts, std::vector<int64_t> steps) {
    return StridedCopyAttrs{std::move(perm), std::move(starts), std::move(steps)};
  };
  const auto error_of = [](const TensorType& x, const StridedCopyAttrs& a, const std::vector<int64_t>& out) {
    try {
      make_strided_copy_workload(x, a, out);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(f32({2, 3}), attrs({1, 1}, {0, 0}, {1, 1}), {3, 3}).find("not a permutation"), std::string::npos);
  EXPECT_NE(error_of(f32({2, 3}), attrs({0, 1}, {0, 0}, {1, -1}), {2, 1}).find("negative steps are not covered"),
            std::string::npos);
  EXPECT_NE(error_of(f32({2, 3}), attrs({0, 1}, {0, 1}, {1, 2}), {2, 2}).find("reads indices 1 to 3 (step 2)"),
            std::string::npos);
  EXPECT_NE(error_of(f32({2, 3}), attrs({0, 1}, {0, 0}, {1, 1}), {2, 0}).find("empty dimension"), std::string::npos);
  EXPECT_NE(error_of(TensorType{DType::i64, {2}}, attrs({0}, {0}, {1}), {2}).find("take f32"), std::string::npos);
  EXPECT_NE(error_of(f32({}), attrs({}, {}, {}), {}).find("rank >= 1"), std::string::npos);
  EXPECT_NE(error_of(f32({2, 3}), attrs({0, 1}, {0}, {1, 1}), {2, 3}).find("needs 2 starts"), std::string::npos);

  // A step along a dim of one element is never taken: the key stores 1.
  EXPECT_EQ(make_strided_copy_workload(f32({4, 6}), attrs({0, 1}, {3, 0}, {5, 1}), {1, 6}).key(),
            make_strided_copy_workload(f32({4, 6}), attrs({0, 1}, {3, 0}, {1, 1}), {1, 6}).key());
  const Workload w = strided_copy_workload_from_shape("128x4x64,perm=1x2x0");
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{4, 64, 128}));
  EXPECT_EQ(strided_copy_inner_source(w), 1);
  EXPECT_EQ(w.key(), Workload::from_json(w.to_json()).key());
  EXPECT_EQ(strided_copy_workload_from_shape("128x2304,starts=0x768,ends=128x1536").output.shape,
            (std::vector<int64_t>{128, 768}));
  EXPECT_THROW(strided_copy_workload_from_shape("4x4,perm=1"), Error);
  EXPECT_THROW(strided_copy_workload_from_shape("4x4,pem=1x0"), Error);
  EXPECT_THROW(strided_copy_workload_from_shape("4x4,ends=4x5"), Error);
  EXPECT_THROW(strided_copy_workload_from_shape("4xq"), Error);
}

// A copy has no FLOPs: its speed is bytes read and written per second.
TEST(StridedCopyWorkload, SpeedIsReportedInBytes) {
  const Workload w = strided_copy_workload_from_shape("128x4x64,perm=1x2x0");
  EXPECT_EQ(w.flops(), 0.0);
  EXPECT_EQ(speed_work(w), 2.0 * 4 * 128 * 4 * 64);
  EXPECT_EQ(speed_text(w, 1.0), "262.1 GB/s");
  const Workload mm = matmul_workload_from_shape("2x3x4");
  EXPECT_EQ(speed_text(mm, 1e-3), "48.0 GFLOP/s");
}

}  // namespace
}  // namespace nee
