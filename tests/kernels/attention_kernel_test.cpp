// The attention kernels, compiled by the Builder into shared libraries (the default
// schedule and seeded random valid points) and called through HalideKernel, against
// compute_reference at shapes whose extents fill no vector or register block evenly, in
// both layouts, with and without masks; an OpenCL kernel goes through nee-measure (the
// only process where PoCL may run) and a CUDA one is compiled to an object.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "core/attention_workload.h"
#include "core/error.h"
#include "runtime/reference/family_reference.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using test::CompiledKernels;

std::map<std::string, Workload> cases() {
  std::map<std::string, Workload> all;
  // ViT's shape in small: 13 queries and keys fill no vector of 4, 8 or 16.
  all["group_major"] = attention_workload_from_shape("3x13x13x8");
  // A causal decoder's, read and written through the heads' Transposes.
  all["sequence_major_causal"] = attention_workload_from_shape("2x19x19x16,layout=sgd,mask=causal");
  // Cross attention: fewer queries than keys, a value depth of its own, a padding mask
  // per group scaled by 0.5.
  all["cross_padding_mask"] = attention_workload_from_shape("2x7x33x12,dv=20,mask=rows,mask_scale=0.5");
  // MobileViT's last stage in small: one query and one key, fewer than any task, block or
  // vector (its default had read K before its start), values padded from 24 columns.
  all["one_query_one_key"] = attention_workload_from_shape("8x1x1x24");
  return all;
}

class AttentionKernel : public test::CompiledKernelsTest<AttentionKernel> {
 public:
  static constexpr char kWorkDirTag[] = "attention";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    std::mt19937_64 rng(2041);
    for (const auto& [name, w] : cases()) kernels.add_points(name, w, cpu, 3, rng);
    const Workload causal = cases().at("sequence_major_causal");
    kernels.add_changed_default("sequence_major_causal", "one_row_blocks", causal, cpu,
                                {{"mr", 1}, {"pv_rows", 1}, {"nr_vecs", 1}});
    kernels.add_default("opencl/sequence_major_causal", causal, host_target(TargetKind::opencl));
  }
};

TEST_F(AttentionKernel, GroupMajorOfRaggedExtents) { kernels().check_points("group_major"); }
TEST_F(AttentionKernel, SequenceMajorWithACausalMask) { kernels().check_points("sequence_major_causal"); }
TEST_F(AttentionKernel, CrossAttentionWithAPaddingMask) { kernels().check_points("cross_padding_mask"); }
TEST_F(AttentionKernel, OneQueryOverOneKey) { kernels().check_points("one_query_one_key"); }

TEST_F(AttentionKernel, OpenClKernelVerifiedByNeeMeasure) {
  const MeasureResult r = kernels().measure("opencl/sequence_major_causal");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
}

// No GPU here: the default point must at least lower to CUDA (PTX in an object).
TEST(AttentionKernelCuda, DefaultCompilesToAnObject) {
  const tuner_test::TempDir dir("attentioncuda");
  const Workload w = attention_workload_from_shape("4x64x64x64,layout=sgd,mask=causal");
  const ScheduleConfig c = make_schedule_space(w, TargetKind::cuda)->default_config();
  const std::string object = dir.file("kernel.o");
  const Target cuda = host_target(TargetKind::cuda);
  ASSERT_NO_THROW(compile_kernel_object(w, cuda, c, Builder::symbol_for(w, cuda), object));
  EXPECT_GT(std::filesystem::file_size(object), 1000u);
}

// The reference the kernels are checked against, on values worked out by hand: one group,
// two queries over two keys of depth 1, a mask that hides the second key from the first.
TEST(AttentionReference, SoftmaxWeightsByHand) {
  const TensorType q{DType::f32, {1, 2, 1}}, k{DType::f32, {1, 1, 2}}, v{DType::f32, {1, 2, 2}};
  const TensorType m{DType::f32, {2, 2}};
  AttentionAttrs attrs;
  attrs.scale = 0.5;
  const Workload w = make_attention_workload(q, k, v, &m, attrs);
  Tensor tq(q), tk(k), tv(v), tm(m), out(w.output);
  const std::vector<float> qs = {2, 4}, ks = {1, 3}, vs = {10, 1, 20, 2}, ms = {0, -INFINITY, 0, 0};
  std::copy(qs.begin(), qs.end(), tq.data_as<float>());
  std::copy(ks.begin(), ks.end(), tk.data_as<float>());
  std::copy(vs.begin(), vs.end(), tv.data_as<float>());
  std::copy(ms.begin(), ms.end(), tm.data_as<float>());
  compute_reference(w, {&tq, &tk, &tv, &tm}, out);
  const float* o = out.data_as<float>();
  // Query 0 sees key 0 alone: V's row 0.
  EXPECT_FLOAT_EQ(o[0], 10.0f);
  EXPECT_FLOAT_EQ(o[1], 1.0f);
  // Query 1: logits 0.5 * 4 * (1, 3) = (2, 6), weights (1, e^4) / (1 + e^4).
  const float w1 = std::exp(4.0f) / (1.0f + std::exp(4.0f));
  EXPECT_NEAR(o[2], 10.0f * (1 - w1) + 20.0f * w1, 1e-4);
  EXPECT_NEAR(o[3], 1.0f * (1 - w1) + 2.0f * w1, 1e-5);
}

TEST(AttentionWorkload, RefusesOperandsThatDoNotFitTheLayout) {
  const auto error_of = [](const std::string& text) {
    try {
      attention_workload_from_shape(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("4x64x64").find("the shape is GxSxTxD"), std::string::npos);
  EXPECT_NE(error_of("4x64x64x8,layout=bshd").find("is not one of gsd, sgd"), std::string::npos);
  const TensorType q{DType::f32, {2, 5, 8}}, kt{DType::f32, {2, 8, 7}}, v{DType::f32, {2, 7, 3}};
  EXPECT_NO_THROW(make_attention_workload(q, kt, v, nullptr, {}));
  const TensorType short_v{DType::f32, {2, 6, 3}}, wide_mask{DType::f32, {3, 5, 7}}, scalar{DType::f32, {}};
  EXPECT_THROW(make_attention_workload(q, kt, short_v, nullptr, {}), Error);
  EXPECT_THROW(make_attention_workload(q, kt, v, &wide_mask, {}), Error);
  EXPECT_THROW(make_attention_workload(q, kt, v, &scalar, {}), Error);
  const Workload w = attention_workload_from_shape("2x7x33x12,dv=20,layout=sgd,mask=causal");
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{7, 2, 20}));
  EXPECT_EQ(w.key(), Workload::from_json(w.to_json()).key());
}

}  // namespace
}  // namespace nee
