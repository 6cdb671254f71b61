// The pool2d, softmax and layernorm kernels, compiled by the Builder into shared libraries
// (the default schedule and two seeded random valid points per shape) and called through
// HalideKernel, against compute_reference at awkward shapes; one CPU and one OpenCL kernel
// per family also go through nee-measure. All kernels are compiled once, in one parallel
// build.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "core/error.h"
#include "core/layernorm_workload.h"
#include "core/pool2d_workload.h"
#include "core/softmax_workload.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using test::CompiledKernels;

TensorType f32(std::vector<int64_t> shape) { return TensorType{DType::f32, std::move(shape)}; }

Pool2dAttrs pool(PoolKind kind, std::array<int64_t, 2> kernel, std::array<int64_t, 2> strides,
                 std::array<int64_t, 4> pads) {
  Pool2dAttrs a;
  a.kind = kind;
  a.kernel = kernel;
  a.strides = strides;
  a.pads = pads;
  return a;
}

std::map<std::string, Workload> cases() {
  std::map<std::string, Workload> all;
  all["pool_max_3x3_s2_p1"] =
      make_pool2d_workload(f32({1, 3, 13, 7}), pool(PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1}), false);
  all["pool_max_ceil"] =
      make_pool2d_workload(f32({1, 2, 7, 13}), pool(PoolKind::max, {2, 2}, {2, 2}, {0, 0, 0, 0}), true);
  Pool2dAttrs dilated = pool(PoolKind::max, {3, 2}, {1, 2}, {1, 0, 0, 1});
  dilated.dilations = {2, 1};
  all["pool_max_dilated_asymmetric"] = make_pool2d_workload(f32({2, 3, 9, 11}), dilated, false);
  all["pool_avg_exclude_pad"] =
      make_pool2d_workload(f32({1, 4, 7, 13}), pool(PoolKind::average, {3, 3}, {1, 1}, {1, 1, 1, 1}), false);
  Pool2dAttrs include = pool(PoolKind::average, {3, 3}, {2, 2}, {1, 1, 1, 1});
  include.count_include_pad = true;
  all["pool_avg_include_pad_ceil"] = make_pool2d_workload(f32({1, 2, 13, 8}), include, true);
  // Channel-blocked pools (between blocked convs): 32 channels as 2 blocks of 16, on planes
  // whose widths no column block divides.
  Pool2dAttrs blocked_max = pool(PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1});
  blocked_max.block = 16;
  all["pool_max_blocked"] = make_pool2d_workload(f32({1, 32, 13, 11}), blocked_max, false);
  Pool2dAttrs blocked_avg = include;
  blocked_avg.block = 16;
  all["pool_avg_blocked_include_pad_ceil"] = make_pool2d_workload(f32({2, 16, 9, 7}), blocked_avg, true);
  all["pool_global_avg"] = make_global_pool2d_workload(f32({1, 5, 7, 7}), PoolKind::average);
  all["pool_global_max"] = make_global_pool2d_workload(f32({2, 3, 13, 1}), PoolKind::max);
  // Planes 20 and 16 wide: the default splits each window row into 8 vector lanes, the
  // first with a ragged last step.
  all["pool_global_avg_lanes"] = make_global_pool2d_workload(f32({1, 3, 9, 20}), PoolKind::average);
  all["pool_global_max_lanes"] = make_global_pool2d_workload(f32({2, 2, 11, 16}), PoolKind::max);
  all["softmax_last"] = make_softmax_workload(f32({3, 13}), -1);
  all["softmax_middle"] = make_softmax_workload(f32({2, 7, 5}), 1);
  all["softmax_single_row"] = make_softmax_workload(f32({13}), 0);
  all["softmax_attention"] = make_softmax_workload(f32({1, 2, 7, 16}), 3);
  const TensorType scale48 = f32({48}), bias_2x13 = f32({1, 13});
  all["layernorm_bias"] = make_layernorm_workload(f32({2, 5, 48}), scale48, &scale48, -1, 1e-5);
  all["layernorm_two_dims"] = make_layernorm_workload(f32({3, 7, 13}), f32({13}), nullptr, 1, 1e-3);
  all["layernorm_single_row"] = make_layernorm_workload(f32({2, 13}), f32({13}), &bias_2x13, 0, 1e-5);
  // RMSNorm (LLaMA's): no mean, rows of 40 (a ragged vector tail at 16 lanes).
  all["rmsnorm"] = make_layernorm_workload(f32({3, 5, 40}), f32({40}), nullptr, -1, 1e-6, true);
  return all;
}

const char* const kOpenClCases[] = {"pool_max_3x3_s2_p1", "softmax_attention", "layernorm_bias", "rmsnorm"};

class PoolSoftmaxLayernormKernel : public test::CompiledKernelsTest<PoolSoftmaxLayernormKernel> {
 public:
  static constexpr char kWorkDirTag[] = "rowpool";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    std::mt19937_64 rng(2027);
    const auto all = cases();
    for (const auto& [name, w] : all) kernels.add_points(name, w, cpu, 2, rng);
    // Staged rows whose vector width does not divide the innermost extent (13, 5): the
    // stored stage must not read past the input.
    for (const char* name : {"layernorm_two_dims", "softmax_middle"}) {
      const Workload& w = all.at(name);
      ScheduleConfig staged = make_schedule_space(w, TargetKind::cpu)->default_config();
      staged.knobs["stage"] = 1;
      staged.knobs["vec"] = 4;
      kernels.add(std::string(name) + "/staged", Candidate{w, cpu, staged, "staged", 0, {}});
    }
    // Row tasks (schedule_cpu_row_tasks) that overlap at the end of a dim: 11 rows in tasks
    // of 4, and tasks of 3 runs of 3 rows (8 rows asked for) over 5 runs.
    kernels.add_changed_default("row_tasks", "softmax_split_rows", make_softmax_workload(f32({3, 11, 9}), -1), cpu,
                                {{"rows", 4}});
    kernels.add_changed_default("row_tasks", "softmax_split_runs", make_softmax_workload(f32({5, 3, 8}), -1), cpu,
                                {{"rows", 8}});
    const TensorType scale8 = f32({8});
    kernels.add_changed_default("row_tasks", "layernorm_split_runs",
                                make_layernorm_workload(f32({5, 3, 8}), scale8, &scale8, -1, 1e-5), cpu,
                                {{"rows", 8}, {"stage", 1}});
    for (const char* name : kOpenClCases) {
      kernels.add_default(std::string("opencl/") + name, all.at(name), host_target(TargetKind::opencl));
    }
    add_row_block_opencl_kernels(kernels);
  }

  // A block per row, its threads sharing the row's reductions: the defaults of an
  // attention-sized softmax and of a layernorm with bias, a layernorm over two dims
  // (the threads split the inner one), and a tensor that is a single row.
  static void add_row_block_opencl_kernels(CompiledKernels& kernels) {
    const Target opencl = host_target(TargetKind::opencl);
    kernels.add_default("opencl/row_blocks/softmax", make_softmax_workload(f32({2, 3, 128}), -1), opencl);
    const TensorType scale256 = f32({256});
    kernels.add_default("opencl/row_blocks/layernorm_bias",
                        make_layernorm_workload(f32({3, 256}), scale256, &scale256, -1, 1e-5), opencl);
    const std::map<std::string, int64_t> row_blocks = {{"threads", 1}, {"split_reduce", 1}, {"row_threads", 32}};
    kernels.add_changed_default("opencl/row_blocks", "layernorm_two_dims",
                                make_layernorm_workload(f32({2, 4, 64}), f32({4, 64}), nullptr, 1, 1e-5), opencl,
                                row_blocks);
    kernels.add_changed_default("opencl/row_blocks", "softmax_single_row", make_softmax_workload(f32({96}), 0),
                                opencl, row_blocks);
    kernels.add_default("opencl/row_blocks/rmsnorm",
                        make_layernorm_workload(f32({3, 256}), scale256, nullptr, -1, 1e-6, true), opencl);
    // Overlapping windows staged in shared memory by default: dilated with asymmetric
    // pads at batch 2, and an average counting the padding in ceil mode.
    for (const char* name : {"pool_max_dilated_asymmetric", "pool_avg_include_pad_ceil"}) {
      kernels.add_default(std::string("opencl/staged/") + name, cases().at(name), opencl);
    }
  }
};

TEST_F(PoolSoftmaxLayernormKernel, MaxPool3x3Stride2Pad1) { kernels().check_points("pool_max_3x3_s2_p1"); }
TEST_F(PoolSoftmaxLayernormKernel, MaxPoolCeilMode) { kernels().check_points("pool_max_ceil"); }
TEST_F(PoolSoftmaxLayernormKernel, MaxPoolDilatedAsymmetricPads) {
  kernels().check_points("pool_max_dilated_asymmetric");
}
TEST_F(PoolSoftmaxLayernormKernel, AveragePoolExcludingPad) { kernels().check_points("pool_avg_exclude_pad"); }
TEST_F(PoolSoftmaxLayernormKernel, AveragePoolIncludingPadCeilMode) {
  kernels().check_points("pool_avg_include_pad_ceil");
}
TEST_F(PoolSoftmaxLayernormKernel, ChannelBlockedMaxPool) {
  EXPECT_EQ(cases().at("pool_max_blocked").output.shape,
            (std::vector<int64_t>{1, 2, 7, 6, 16}));
  kernels().check_points("pool_max_blocked");
}
TEST_F(PoolSoftmaxLayernormKernel, ChannelBlockedAveragePoolIncludingPadCeilMode) {
  kernels().check_points("pool_avg_blocked_include_pad_ceil");
}
TEST_F(PoolSoftmaxLayernormKernel, GlobalAveragePool) { kernels().check_points("pool_global_avg"); }
TEST_F(PoolSoftmaxLayernormKernel, GlobalMaxPool) { kernels().check_points("pool_global_max"); }
TEST_F(PoolSoftmaxLayernormKernel, GlobalPoolsInWindowLanes) {
  for (const char* name : {"pool_global_avg_lanes", "pool_global_max_lanes"}) {
    EXPECT_EQ(make_schedule_space(cases().at(name), TargetKind::cpu)->default_config().at("window_lanes"), 8) << name;
    kernels().check_points(name);
  }
}
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxLastAxis) { kernels().check_points("softmax_last"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxMiddleAxis) { kernels().check_points("softmax_middle"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxSingleRow) { kernels().check_points("softmax_single_row"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxAttentionShape) { kernels().check_points("softmax_attention"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormWithBias) { kernels().check_points("layernorm_bias"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormOverTwoDims) { kernels().check_points("layernorm_two_dims"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormSingleRow) { kernels().check_points("layernorm_single_row"); }
TEST_F(PoolSoftmaxLayernormKernel, RmsNorm) { kernels().check_points("rmsnorm"); }

TEST_F(PoolSoftmaxLayernormKernel, StagedRowsWithVectorTails) {
  kernels().check_against_reference("layernorm_two_dims/staged");
  kernels().check_against_reference("softmax_middle/staged");
}

TEST_F(PoolSoftmaxLayernormKernel, RowTasksOverlappingAtTheEndOfADim) {
  kernels().check_against_reference("row_tasks/softmax_split_rows");
  kernels().check_against_reference("row_tasks/softmax_split_runs");
  kernels().check_against_reference("row_tasks/layernorm_split_runs");
}

TEST_F(PoolSoftmaxLayernormKernel, PoolOutputShapes) {
  // ceil_mode keeps the last partial window: 7 -> 4 rows, 13 -> 7 columns.
  const auto shape = [](const std::string& name) { return kernels().get(name).candidate.workload.output.shape; };
  EXPECT_EQ(shape("pool_max_ceil/default"), (std::vector<int64_t>{1, 2, 4, 7}));
  EXPECT_EQ(shape("pool_max_3x3_s2_p1/default"), (std::vector<int64_t>{1, 3, 7, 4}));
  EXPECT_EQ(shape("pool_global_avg/default"), (std::vector<int64_t>{1, 5, 1, 1}));
}

TEST_F(PoolSoftmaxLayernormKernel, CpuKernelsVerifiedByNeeMeasure) {
  for (const char* name : kOpenClCases) {
    const MeasureResult r = kernels().measure(std::string(name) + "/default");
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_GT(r.median_us, 0) << name;
  }
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(PoolSoftmaxLayernormKernel, OpenClKernelsVerifiedByNeeMeasure) {
  for (const char* name : kOpenClCases) {
    const MeasureResult r = kernels().measure(std::string("opencl/") + name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

TEST_F(PoolSoftmaxLayernormKernel, OpenClRowBlocksVerifiedByNeeMeasure) {
  for (const char* name : {"opencl/row_blocks/softmax", "opencl/row_blocks/layernorm_bias",
                           "opencl/row_blocks/layernorm_two_dims", "opencl/row_blocks/softmax_single_row",
                           "opencl/row_blocks/rmsnorm"}) {
    EXPECT_GT(kernels().get(name).candidate.config.at("row_threads"), 1) << name << " runs a thread per row";
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

TEST_F(PoolSoftmaxLayernormKernel, OpenClStagedPoolsVerifiedByNeeMeasure) {
  for (const char* name : {"opencl/pool_max_3x3_s2_p1", "opencl/staged/pool_max_dilated_asymmetric",
                           "opencl/staged/pool_avg_include_pad_ceil"}) {
    EXPECT_EQ(kernels().get(name).candidate.config.at("stage"), 1) << name;
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-4) << name;
  }
}

TEST(PoolSoftmaxLayernormWorkload, ValidatesShapesAndAttributes) {
  // A pad as wide as the window would let a window hold padding only.
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 5, 5}), pool(PoolKind::max, {2, 2}, {1, 1}, {2, 0, 0, 0}), false),
               Error);
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 5}), Pool2dAttrs{}, false), Error);
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 2, 2}), pool(PoolKind::max, {3, 3}, {1, 1}, {0, 0, 0, 0}), false),
               Error);
  EXPECT_THROW(make_softmax_workload(f32({2, 3}), 2), Error);
  EXPECT_THROW(make_softmax_workload(TensorType{DType::i64, {2, 3}}, 1), Error);
  EXPECT_THROW(make_layernorm_workload(f32({2, 3}), f32({2, 3}), nullptr, 1, 1e-5), Error);
  EXPECT_THROW(make_layernorm_workload(f32({2, 3}), f32({3}), nullptr, 2, 1e-5), Error);
  // RMSNorm is in the key, only where set; a layer norm's key is as before.
  const Workload rms = make_layernorm_workload(f32({2, 3}), f32({3}), nullptr, -1, 1e-5, true);
  EXPECT_NE(rms.key().find(R"("rms":1)"), std::string::npos) << rms.key();
  EXPECT_TRUE(layernorm_is_rms(Workload::from_json(rms.to_json())));
  EXPECT_EQ(make_layernorm_workload(f32({2, 3}), f32({3}), nullptr, -1, 1e-5).key().find("rms"), std::string::npos);
  EXPECT_EQ(layernorm_workload_from_shape("2x3,rms=1,bias=0").key(), rms.key());

  // Global pools are plain pools whose window is the plane: the same key.
  const Workload global = make_global_pool2d_workload(f32({1, 8, 7, 7}), PoolKind::average);
  const Workload windowed =
      make_pool2d_workload(f32({1, 8, 7, 7}), pool(PoolKind::average, {7, 7}, {1, 1}, {0, 0, 0, 0}), true);
  EXPECT_EQ(global.key(), windowed.key());
  EXPECT_DOUBLE_EQ(global.flops(), 8.0 * 49);
  // A channel-blocked pool: 16k channels in blocks of 16, stored blocked, its key
  // round-tripping; an NCHW pool's key does not name a block.
  Pool2dAttrs blocked = pool(PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1});
  blocked.block = 16;
  EXPECT_THROW(make_pool2d_workload(f32({1, 24, 8, 8}), blocked, false), Error);
  const Workload b = make_pool2d_workload(f32({1, 32, 8, 8}), blocked, false);
  EXPECT_EQ(b.inputs[0].shape, (std::vector<int64_t>{1, 2, 8, 8, 16}));
  EXPECT_EQ(b.output.shape, (std::vector<int64_t>{1, 2, 4, 4, 16}));
  EXPECT_EQ(pool2d_nchw_output(b).shape, (std::vector<int64_t>{1, 32, 4, 4}));
  EXPECT_EQ(b.key(), Workload::from_json(b.to_json()).key());
  EXPECT_EQ(b.key(), pool2d_workload_from_shape("1x32x8x8,kernel=3x3,strides=2x2,pads=1x1x1x1,block=16").key());
  EXPECT_DOUBLE_EQ(b.flops(), 32.0 * 16 * 9);
  blocked.block = 8;
  EXPECT_THROW(make_pool2d_workload(f32({1, 32, 8, 8}), blocked, false), Error);
  EXPECT_EQ(global.key().find("block"), std::string::npos);
  EXPECT_EQ(make_softmax_workload(f32({2, 3}), -1).key(), make_softmax_workload(f32({2, 3}), 1).key());
  const Workload ln = make_layernorm_workload(f32({4, 6}), f32({6}), nullptr, -1, 1e-5);
  EXPECT_EQ(ln.key(), Workload::from_json(ln.to_json()).key());
  EXPECT_EQ(layernorm_row_length(ln), 6);
}

}  // namespace
}  // namespace nee
