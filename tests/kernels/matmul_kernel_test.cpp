// The matmul kernel, compiled by the Builder into shared libraries (default and random
// valid schedules) and called through HalideKernel, against compute_reference on fresh
// random inputs at awkward shapes. All CPU and OpenCL kernels are compiled once, in one
// parallel build, and shared by the tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "core/error.h"
#include "core/isa_level.h"
#include "core/matmul_workload.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/bundle/shared_library.h"
#include "runtime/reference/family_reference.h"
#include "runtime/tensor_io.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tests/kernels/quantized_operands.h"
#include "tests/tuner/temp_dir.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::CompiledKernels;

Workload plain(int64_t m, int64_t k, int64_t n) {
  return make_matmul_workload({DType::f32, {m, k}}, {DType::f32, {k, n}}, nullptr, MatmulAttrs{});
}

// [2, 37, 23] x B of 48 columns in 3 panels of 16, plus a bias, then Relu.
Workload panels_workload() {
  MatmulAttrs a;
  a.b_block = 16;
  a.relu = true;
  const TensorType c{DType::f32, {48}};
  return make_matmul_workload({DType::f32, {2, 37, 23}}, {DType::f32, {3, 23, 16}}, &c, a);
}

// [rows, 70] (with batch dims `batch`) x B of 45 columns in 3 panels of 16, the last
// one's 3 lanes past N zeros, plus a bias, then Relu: a classifier's 1000 columns in
// miniature.
Workload padded_panels_workload(std::vector<int64_t> a_shape) {
  MatmulAttrs a;
  a.b_block = 16;
  a.b_columns = 45;
  a.relu = true;
  const TensorType c{DType::f32, {45}};
  return make_matmul_workload({DType::f32, a_shape}, {DType::f32, {3, 70, 16}}, &c, a);
}

// [a_shape] x B of `n` columns quantized to `bits` in panels of 16 (the last one padded
// where n needs it), with a scale and offset per group of 32 rows, plus a bias.
Workload quantized_workload(std::vector<int64_t> a_shape, int64_t n, int64_t bits) {
  MatmulAttrs a;
  a.b_block = 16;
  a.b_columns = n % 16 == 0 ? 0 : n;
  a.b_bits = bits;
  a.b_group = 32;
  const int64_t k = a_shape.back(), panels = (n + 15) / 16;
  const TensorType c{DType::f32, {n}};
  return make_quantized_matmul_workload({DType::f32, a_shape}, {DType::u8, {panels, k * bits / 8, 16}},
                                        {DType::f32, {panels, (k + 31) / 32, 2, 16}}, &c, a);
}

// [a_shape] x B of `n` columns as an integer product (MatmulAttrs::a_bits) in panels of 16
// columns by 4 rows (the last one padded where n needs it), plus a bias, then GELU.
Workload integer_workload(std::vector<int64_t> a_shape, int64_t n) {
  MatmulAttrs a;
  a.b_block = 16;
  a.b_columns = n % 16 == 0 ? 0 : n;
  a.b_bits = 8;
  a.a_bits = 8;
  a.gelu = true;
  const int64_t k = a_shape.back(), panels = (n + 15) / 16;
  const TensorType c{DType::f32, {n}};
  return make_integer_matmul_workload({DType::f32, a_shape}, {DType::i8, {panels, k / 4, 16, 4}},
                                      {DType::f32, {panels, 2, 16}}, {DType::f32, {}}, {DType::u8, {1}}, &c, a);
}

class MatmulKernel : public test::CompiledKernelsTest<MatmulKernel> {
 public:
  static constexpr char kWorkDirTag[] = "kernels";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    kernels.add_default("1x1x1", plain(1, 1, 1), cpu);
    kernels.add_default("7x13x5", plain(7, 13, 5), cpu);
    kernels.add_default("129x65x33", plain(129, 65, 33), cpu);
    kernels.add_default("batched_broadcast",
                        make_matmul_workload({DType::f32, {2, 3, 5, 7}}, {DType::f32, {7, 4}}, nullptr, MatmulAttrs{}),
                        cpu);
    {
      MatmulAttrs a;
      a.trans_a = a.trans_b = true;
      a.alpha = 0.5;
      a.beta = 2;
      const TensorType c{DType::f32, {1, 10}};
      kernels.add_default("gemm_trans_bias_row",
                          make_matmul_workload({DType::f32, {6, 9}}, {DType::f32, {10, 6}}, &c, a), cpu);
    }
    {
      MatmulAttrs a;
      a.alpha = 0.5;
      // beta * c stays within the products' spread (0.5 * sum of 6 products in [-1, 1]), so
      // the Relu keeps some outputs whichever scalar the random inputs draw (with beta 2,
      // both of the test's draws left all 90 outputs at zero).
      a.beta = 0.25;
      a.relu = true;
      const TensorType c{DType::f32, {1}};
      kernels.add_default("gemm_scalar_bias_relu",
                          make_matmul_workload({DType::f32, {9, 6}}, {DType::f32, {6, 10}}, &c, a), cpu);
    }
    {
      MatmulAttrs a;
      a.relu = true;
      const TensorType c{DType::f32, {19}};
      kernels.add_default("matmul_bias_relu",
                          make_matmul_workload({DType::f32, {17, 11}}, {DType::f32, {11, 19}}, &c, a), cpu);
    }
    {
      MatmulAttrs a;
      a.gelu = true;
      a.alpha = 0.25;
      const TensorType c{DType::f32, {19}};
      kernels.add_default("matmul_scaled_bias_gelu",
                          make_matmul_workload({DType::f32, {2, 17, 11}}, {DType::f32, {11, 19}}, &c, a), cpu);
    }
    // B packed in 16-column panels (pack_matmul_weights), batched A with a bias and Relu:
    // the default point, two random ones, and 8-wide vectors in 24-column register blocks,
    // which start halfway into a panel.
    {
      const Workload w = panels_workload();
      std::mt19937_64 rng(77);
      kernels.add_points("panels", w, cpu, 2, rng);
      kernels.add_changed_default("panels", "vec8_nr24", w, cpu, {{"vec", 8}, {"nr_vecs", 3}, {"mr", 4}});
    }
    // Padded panels: the default (64-column register blocks, the last one guarded), two
    // random points, 8-wide vectors in 24-column blocks, a kc split, and one row (a
    // batch-1 classifier).
    {
      const Workload w = padded_panels_workload({2, 37, 70});
      std::mt19937_64 rng(78);
      kernels.add_points("padded_panels", w, cpu, 2, rng);
      kernels.add_changed_default("padded_panels", "vec8_nr24", w, cpu, {{"vec", 8}, {"nr_vecs", 3}, {"mr", 4}});
      kernels.add_changed_default("padded_panels", "kc64", w, cpu, {{"kc", 64}, {"mr", 1}, {"mc_blocks", 8}});
      kernels.add_points("padded_panels_one_row", padded_panels_workload({1, 70}), cpu, 0, rng);
    }
    // B quantized in panels (quantize_matmul_weights): 4-bit with padded panels over a batch
    // of 13-row products (the default dequantizes a panel per tile: pack_b), the same read
    // in place two rows a step, two random points, one row (a decoder's token), and 8-bit
    // with K = 70 (its last group of 32 rows part filled).
    {
      std::mt19937_64 rng(79);
      const Workload four = quantized_workload({2, 13, 64}, 45, 4);
      kernels.add_points("quantized4", four, cpu, 2, rng);
      kernels.add_changed_default("quantized4", "in_place", four, cpu, {{"pack_b", 0}, {"unroll_k", 2}});
      kernels.add_points("quantized4_one_row", quantized_workload({1, 64}, 45, 4), cpu, 0, rng);
      kernels.add_points("quantized8", quantized_workload({5, 70}, 48, 8), cpu, 1, rng);
      // Integer products: dot products of four rows where the host has VNNI (vpdpbusd), sums
      // in f32 where it has not; and at avx2, which every x86 CPU NEE meets has, in f32.
      kernels.add_points("integer", integer_workload({2, 13, 64}, 45), cpu, 2, rng);
      kernels.add_points("integer_one_row", integer_workload({1, 96}, 48), cpu, 1, rng);
      Target avx2 = cpu;
      avx2.halide = isa_level_named("avx2").halide;
      if (host_arch() == "x86-64") {
        const Workload w = integer_workload({7, 64}, 32);
        const ScheduleConfig point = make_schedule_space(w, avx2)->default_config();
        kernels.add("integer_avx2", Candidate{w, avx2, point, "default", 0, {}});
      }
    }
    // Random valid non-default CPU points: one with kc > 0, one with parallel = 2, one more.
    {
      const Workload w = plain(129, 65, 33);
      const auto space = make_schedule_space(w, TargetKind::cpu);
      std::mt19937_64 rng(2024);
      std::optional<ScheduleConfig> with_kc, with_parallel2, other;
      for (int i = 0; i < 10000 && !(with_kc && with_parallel2 && other); ++i) {
        ScheduleConfig c = space->random_config(rng);
        if (c == space->default_config()) continue;
        if (!with_kc && c.at("kc") > 0) {
          with_kc = c;
        } else if (!with_parallel2 && c.at("parallel") == 2 && c.at("kc") == 0) {
          with_parallel2 = c;
        } else if (!other && c.at("kc") == 0 && c.at("parallel") != 2) {
          other = c;
        }
      }
      ASSERT_TRUE(with_kc && with_parallel2 && other) << "random_config never gave the wanted points";
      kernels.add("random_kc", Candidate{w, cpu, *with_kc, "random", 0, {}});
      kernels.add("random_parallel2", Candidate{w, cpu, *with_parallel2, "random", 0, {}});
      kernels.add("random_other", Candidate{w, cpu, *other, "random", 0, {}});
    }
    kernels.add_default("opencl_16x8x12", plain(16, 8, 12), host_target(TargetKind::opencl));
    add_staged_opencl_kernels(kernels);
  }

  // GPU kernels that stage A and B in shared memory: the default point at a shape whose
  // last column block overlaps the one before it, a transposed Gemm with its epilogue,
  // and a batched MatMul whose B broadcasts over the batch.
  static void add_staged_opencl_kernels(CompiledKernels& kernels) {
    const Target opencl = host_target(TargetKind::opencl);
    kernels.add_default("opencl/staged_default", plain(128, 64, 96), opencl);
    const std::map<std::string, int64_t> small_tiles = {{"threads_n", 4},       {"threads_m", 4},
                                                        {"rows_per_thread", 2}, {"cols_per_thread", 4},
                                                        {"tile_k", 8},          {"unroll_k", 2}};
    MatmulAttrs gemm;
    gemm.trans_a = gemm.trans_b = true;
    gemm.alpha = 0.5;
    gemm.beta = 2;
    gemm.relu = true;
    const TensorType row{DType::f32, {1, 36}};
    std::map<std::string, int64_t> gemm_point = small_tiles;
    gemm_point["vector_load"] = 1;
    kernels.add_changed_default("opencl/staged", "gemm_trans_bias_relu",
                                make_matmul_workload({DType::f32, {24, 40}}, {DType::f32, {36, 24}}, &row, gemm),
                                opencl, gemm_point);
    std::map<std::string, int64_t> batched_point = small_tiles;
    batched_point["cols_per_thread"] = 2;
    batched_point["vector_load"] = 2;
    kernels.add_changed_default(
        "opencl/staged", "batched_broadcast",
        make_matmul_workload({DType::f32, {2, 3, 40, 32}}, {DType::f32, {32, 24}}, nullptr, MatmulAttrs{}), opencl,
        batched_point);
  }
};

TEST_F(MatmulKernel, OneByOneByOne) { kernels().check_against_reference("1x1x1"); }
TEST_F(MatmulKernel, Shape7x13x5) { kernels().check_against_reference("7x13x5"); }
TEST_F(MatmulKernel, Shape129x65x33) { kernels().check_against_reference("129x65x33"); }

TEST_F(MatmulKernel, BatchedBroadcast) {
  EXPECT_EQ(kernels().get("batched_broadcast").candidate.workload.output.shape, (std::vector<int64_t>{2, 3, 5, 4}));
  kernels().check_against_reference("batched_broadcast");
}

TEST_F(MatmulKernel, GemmTransposedWithAlphaBetaAndRowBias) {
  kernels().check_against_reference("gemm_trans_bias_row");
}
TEST_F(MatmulKernel, GemmScalarBiasAndRelu) { kernels().check_against_reference("gemm_scalar_bias_relu"); }
TEST_F(MatmulKernel, MatMulBiasRelu) { kernels().check_against_reference("matmul_bias_relu"); }
TEST_F(MatmulKernel, MatMulScaledBiasGelu) { kernels().check_against_reference("matmul_scaled_bias_gelu"); }

TEST_F(MatmulKernel, PanelsOfB) {
  EXPECT_EQ(kernels().get("panels/default").candidate.workload.output.shape, (std::vector<int64_t>{2, 37, 48}));
  EXPECT_EQ(kernels().get("panels/default").candidate.config.at("pack_b"), 0);
  kernels().check_points("panels");
}

TEST_F(MatmulKernel, PaddedPanelsOfB) {
  EXPECT_EQ(kernels().get("padded_panels/default").candidate.workload.output.shape,
            (std::vector<int64_t>{2, 37, 45}));
  kernels().check_points("padded_panels");
  kernels().check_points("padded_panels_one_row");
}

TEST_F(MatmulKernel, QuantizedPanelsOfB) {
  EXPECT_EQ(kernels().get("quantized4/default").candidate.config.at("pack_b"), 1);
  EXPECT_EQ(kernels().get("quantized4_one_row/default").candidate.config.at("pack_b"), 0);
  kernels().check_points("quantized4");
  kernels().check_points("quantized4_one_row");
  kernels().check_points("quantized8");
}

TEST_F(MatmulKernel, IntegerProducts) {
  kernels().check_points("integer");
  kernels().check_points("integer_one_row");
  if (host_arch() == "x86-64") kernels().check_against_reference("integer_avx2");
}

TEST(MatmulWorkload, IntegerProductsAreInTheKeyAndChecked) {
  const Workload w = integer_workload({5, 64}, 45);
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{5, 45}));
  EXPECT_NE(w.key().find(R"("a_bits":8)"), std::string::npos) << w.key();
  EXPECT_NE(w.key().find("i8[3,16,16,4],f32[3,2,16],f32[],u8[1],f32[45]"), std::string::npos) << w.key();
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  EXPECT_EQ(matmul_bias_input(matmul_attrs(w)), 5u);
  const MatmulAttrs a = matmul_attrs(w);
  const TensorType panels{DType::i8, {3, 16, 16, 4}}, scales{DType::f32, {3, 2, 16}};
  const TensorType scale{DType::f32, {}}, zero{DType::u8, {}};
  EXPECT_NO_THROW(make_integer_matmul_workload({DType::f32, {5, 64}}, panels, scales, scale, zero, nullptr, a));
  // K is 64; the panels are i8, the zero point u8 and one value.
  EXPECT_THROW(make_integer_matmul_workload({DType::f32, {5, 60}}, panels, scales, scale, zero, nullptr, a), Error);
  EXPECT_THROW(make_integer_matmul_workload({DType::f32, {5, 64}}, {DType::u8, {3, 16, 16, 4}}, scales, scale, zero,
                                            nullptr, a),
               Error);
  EXPECT_THROW(make_integer_matmul_workload({DType::f32, {5, 64}}, panels, scales, scale, {DType::u8, {2}}, nullptr, a),
               Error);
  EXPECT_THROW(make_integer_matmul_workload({DType::f32, {5, 64}}, panels, {DType::f32, {3, 1, 16}}, scale, zero,
                                            nullptr, a),
               Error);
}

// The reference of an integer product against the plain product of A's bytes less its zero
// point by B's integers times their multipliers, read by the loops written here.
TEST(MatmulWorkload, IntegerReferenceIsThePlainProduct) {
  const Workload integer = integer_workload({3, 64}, 45);
  MatmulAttrs plain_attrs = matmul_attrs(integer);
  plain_attrs.b_block = plain_attrs.b_columns = plain_attrs.b_bits = plain_attrs.a_bits = 0;
  const TensorType c{DType::f32, {45}};
  const Workload plain_w = make_matmul_workload({DType::f32, {3, 64}}, {DType::f32, {64, 45}}, &c, plain_attrs);
  std::mt19937_64 rng(45);
  const std::vector<Tensor> in = random_inputs(integer, rng);
  const float scale = in[3].data_as<float>()[0];
  const int zero = in[4].data_as<uint8_t>()[0];
  Tensor a(plain_w.inputs[0]), b(plain_w.inputs[1]);
  const int64_t saturated = test::quantize_centred(in[0], scale, zero, a);
  EXPECT_GT(saturated, 0);
  EXPECT_LT(saturated, a.elements());
  for (int64_t k = 0; k < 64; ++k) {
    for (int64_t n = 0; n < 45; ++n) {
      const int8_t q = in[1].data_as<int8_t>()[((n / 16 * 16 + k / 4) * 16 + n % 16) * 4 + k % 4];
      b.data_as<float>()[k * 45 + n] = static_cast<float>(q) * in[2].data_as<float>()[(n / 16) * 32 + n % 16];
    }
  }
  Tensor from_integers(integer.output), from_plain(plain_w.output);
  compute_reference(integer, {&in[0], &in[1], &in[2], &in[3], &in[4], &in[5]}, from_integers);
  compute_reference(plain_w, {&a, &b, &in[5]}, from_plain);
  // The reference sums A's bytes uncentred, then adds the zero point's part: f32 rounding.
  test::expect_near_peak(from_integers, from_plain, 1e-5);
}

TEST(MatmulWorkload, QuantizedPanelsAreInTheKeyAndChecked) {
  const Workload w = quantized_workload({5, 64}, 45, 4);
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{5, 45}));
  EXPECT_NE(w.key().find(R"("b_bits":4)"), std::string::npos) << w.key();
  EXPECT_NE(w.key().find(R"("b_group":32)"), std::string::npos) << w.key();
  EXPECT_NE(w.key().find("u8[3,32,16],f32[3,2,2,16],f32[45]"), std::string::npos) << w.key();
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  EXPECT_EQ(matmul_bias_input(matmul_attrs(w)), 3u);
  MatmulAttrs a = matmul_attrs(w);
  const TensorType panels{DType::u8, {3, 32, 16}}, scales{DType::f32, {3, 2, 2, 16}};
  // K is 64: A's 63 does not match, and scales of 32-row groups are [3, 2, 2, 16].
  EXPECT_THROW(make_quantized_matmul_workload({DType::f32, {5, 63}}, panels, scales, nullptr, a), Error);
  EXPECT_THROW(make_quantized_matmul_workload({DType::f32, {5, 64}}, panels, {DType::f32, {3, 4, 2, 16}}, nullptr, a),
               Error);
  EXPECT_THROW(make_quantized_matmul_workload({DType::f32, {5, 64}}, {DType::f32, {3, 32, 16}}, scales, nullptr, a),
               Error);
  // The plain maker takes no quantized B, nor this one other widths.
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 64}}, {DType::f32, {3, 32, 16}}, nullptr, a), Error);
  a.b_bits = 2;
  EXPECT_THROW(make_quantized_matmul_workload({DType::f32, {5, 64}}, panels, scales, nullptr, a), Error);
}

// The reference of a 4-bit B against the plain product's on the matrix its panels hold,
// read by the loop written here: row k's nibble (low for even k), times its group's scale
// plus its offset.
TEST(MatmulWorkload, QuantizedReferenceIsThePlainProduct) {
  const Workload quantized = quantized_workload({3, 64}, 45, 4);
  MatmulAttrs plain_attrs = matmul_attrs(quantized);
  plain_attrs.b_block = plain_attrs.b_columns = plain_attrs.b_bits = plain_attrs.b_group = 0;
  const TensorType c{DType::f32, {45}};
  const Workload plain_w = make_matmul_workload({DType::f32, {3, 64}}, {DType::f32, {64, 45}}, &c, plain_attrs);
  std::mt19937_64 rng(44);
  const std::vector<Tensor> in = random_inputs(quantized, rng);
  Tensor b(plain_w.inputs[1]);
  for (int64_t k = 0; k < 64; ++k) {
    for (int64_t n = 0; n < 45; ++n) {
      const uint8_t byte = in[1].data_as<uint8_t>()[(n / 16 * 32 + k / 2) * 16 + n % 16];
      const int q = k % 2 == 0 ? byte & 15 : byte >> 4;
      const float* group = in[2].data_as<float>() + ((n / 16) * 2 + k / 32) * 32 + n % 16;
      b.data_as<float>()[k * 45 + n] = std::fma(static_cast<float>(q), group[0], group[16]);
    }
  }
  Tensor from_panels(quantized.output), from_plain(plain_w.output);
  compute_reference(quantized, {&in[0], &in[1], &in[2], &in[3]}, from_panels);
  compute_reference(plain_w, {&in[0], &b, &in[3]}, from_plain);
  double sum = 0;
  for (int64_t i = 0; i < from_plain.elements(); ++i) {
    EXPECT_EQ(from_panels.data_as<float>()[i], from_plain.data_as<float>()[i]) << i;
    sum += std::fabs(from_plain.data_as<float>()[i]);
  }
  EXPECT_GT(sum, 0);
}

// The reference of a packed B against the plain product's on the matrix its panels hold,
// unpacked by the loop written here.
TEST(MatmulWorkload, PanelsReferenceIsThePlainProduct) {
  const Workload packed = panels_workload();
  MatmulAttrs plain_attrs = matmul_attrs(packed);
  plain_attrs.b_block = 0;
  const TensorType c{DType::f32, {48}};
  const Workload plain_w = make_matmul_workload({DType::f32, {2, 37, 23}}, {DType::f32, {23, 48}}, &c, plain_attrs);
  EXPECT_EQ(packed.output.shape, plain_w.output.shape);
  const Tensor a = random_tensor(packed.inputs[0], 41), panels = random_tensor(packed.inputs[1], 42);
  const Tensor bias = random_tensor(packed.inputs[2], 43);
  Tensor b(plain_w.inputs[1]);
  for (int64_t k = 0; k < 23; ++k) {
    for (int64_t n = 0; n < 48; ++n) {
      b.data_as<float>()[k * 48 + n] = panels.data_as<float>()[(n / 16 * 23 + k) * 16 + n % 16];
    }
  }
  Tensor from_panels(packed.output), from_plain(plain_w.output);
  compute_reference(packed, {&a, &panels, &bias}, from_panels);
  compute_reference(plain_w, {&a, &b, &bias}, from_plain);
  int positives = 0;
  for (int64_t i = 0; i < from_plain.elements(); ++i) {
    EXPECT_EQ(from_panels.data_as<float>()[i], from_plain.data_as<float>()[i]) << i;
    positives += from_plain.data_as<float>()[i] > 0;
  }
  EXPECT_GT(positives, 100);
}

TEST(MatmulWorkload, PanelsOfBAreInTheKeyAndChecked) {
  MatmulAttrs a;
  a.b_block = 16;
  const Workload w = make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {2, 8, 16}}, nullptr, a);
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{5, 32}));
  EXPECT_NE(w.key().find(R"("b_block":16)"), std::string::npos) << w.key();
  EXPECT_EQ(matmul_attrs(w).b_block, 16);
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  // K must match A's; panels are [N/16, K, 16], never transposed.
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 7}}, {DType::f32, {2, 8, 16}}, nullptr, a), Error);
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {2, 8, 8}}, nullptr, a), Error);
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {8, 32}}, nullptr, a), Error);
  a.trans_b = true;
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {2, 8, 16}}, nullptr, a), Error);
  // b_columns: N where it leaves the last panel part filled, in the key only when set.
  a.trans_b = false;
  a.b_columns = 20;
  const Workload padded = make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {2, 8, 16}}, nullptr, a);
  EXPECT_EQ(padded.output.shape, (std::vector<int64_t>{5, 20}));
  EXPECT_NE(padded.key().find(R"("b_columns":20)"), std::string::npos) << padded.key();
  EXPECT_EQ(w.key().find("b_columns"), std::string::npos) << w.key();
  EXPECT_EQ(Workload::from_json(padded.to_json()).key(), padded.key());
  for (int64_t columns : {16, 32, 40}) {
    a.b_columns = columns;
    EXPECT_THROW(make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {2, 8, 16}}, nullptr, a), Error) << columns;
  }
  a.b_block = 0;
  a.b_columns = 20;
  EXPECT_THROW(make_matmul_workload({DType::f32, {5, 8}}, {DType::f32, {8, 32}}, nullptr, a), Error);
}

TEST(MatmulWorkload, KeysWithoutGeluAreUnchanged) {
  const TensorType c{DType::f32, {2}};
  MatmulAttrs a;
  a.relu = true;
  const Workload w = make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a);
  EXPECT_EQ(w.key(), R"(matmul(f32[4,8],f32[8,2],f32[2])->f32[4,2]{"alpha":1.0,"beta":1.0,"bias":1,"relu":1,"trans_a":0,"trans_b":0})");
  a.relu = false;
  a.gelu = true;
  const Workload g = make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a);
  EXPECT_NE(g.key().find(R"("gelu":1)"), std::string::npos);
  EXPECT_TRUE(matmul_attrs(g).gelu);
  a.relu = true;
  EXPECT_THROW(make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a), Error);
}

// The reference itself, for the Gemm case, against loops written here.
TEST_F(MatmulKernel, GemmMatchesHandWrittenLoops) {
  const test::CompiledKernel& b = kernels().get("gemm_trans_bias_row");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  const Workload& w = b.candidate.workload;
  const Tensor a = random_tensor(w.inputs[0], 5), bm = random_tensor(w.inputs[1], 6), c = random_tensor(w.inputs[2], 7);
  const Tensor out = kernels().run("gemm_trans_bias_row", {&a, &bm, &c});
  const int64_t m = 9, k = 6, n = 10;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a.data_as<float>()[p * m + i] * bm.data_as<float>()[j * k + p];
      const double want = 0.5 * s + 2.0 * c.data_as<float>()[j];
      EXPECT_NEAR(out.data_as<float>()[i * n + j], want, 1e-5) << i << "," << j;
    }
  }
}

TEST_F(MatmulKernel, ReluClampsNegatives) {
  // A zero bias: about half the outputs are negative before the relu.
  const test::CompiledKernel& b = kernels().get("gemm_scalar_bias_relu");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  const Workload& w = b.candidate.workload;
  const Tensor a = random_tensor(w.inputs[0], 31), bm = random_tensor(w.inputs[1], 32);
  Tensor c(w.inputs[2]);
  const Tensor out = kernels().run("gemm_scalar_bias_relu", {&a, &bm, &c});
  Tensor want(w.output);
  compute_reference(w, {&a, &bm, &c}, want);
  int zeros = 0, positives = 0;
  for (int64_t i = 0; i < out.elements(); ++i) {
    const float v = out.data_as<float>()[i];
    EXPECT_GE(v, 0.0f);
    EXPECT_NEAR(v, want.data_as<float>()[i], 1e-5);
    zeros += v == 0.0f;
    positives += v > 0.0f;
  }
  EXPECT_GT(zeros, 10);
  EXPECT_GT(positives, 10);
}

TEST_F(MatmulKernel, RandomScheduleWithKcSplit) {
  EXPECT_GT(kernels().get("random_kc").candidate.config.at("kc"), 0);
  kernels().check_against_reference("random_kc");
}

TEST_F(MatmulKernel, RandomScheduleWithFusedParallelTiles) {
  EXPECT_EQ(kernels().get("random_parallel2").candidate.config.at("parallel"), 2);
  kernels().check_against_reference("random_parallel2");
}

TEST_F(MatmulKernel, AnotherRandomSchedule) { kernels().check_against_reference("random_other"); }

TEST_F(MatmulKernel, KernelRefusesOtherShapes) {
  const test::CompiledKernel& b = kernels().get("7x13x5");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  SharedLibrary lib(b.build.artifact);
  HalideKernel kernel(lib, b.build.symbol);
  const Workload other = make_matmul_workload({DType::f32, {7, 13, 2}}, {DType::f32, {7, 2, 5}}, nullptr, {});
  EXPECT_THROW(kernel.check_signature(other.inputs, other.output), Error);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(MatmulKernel, OpenClKernelVerifiedByNeeMeasure) {
  EXPECT_EQ(kernels().get("opencl_16x8x12").candidate.target.kind(), TargetKind::opencl);
  const MeasureResult r = kernels().measure("opencl_16x8x12");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
  EXPECT_LT(r.max_abs_error, 1e-3);
}

TEST_F(MatmulKernel, OpenClStagedKernelsVerifiedByNeeMeasure) {
  for (const char* name : {"opencl/staged_default", "opencl/staged/gemm_trans_bias_relu", "opencl/staged/batched_broadcast"}) {
    EXPECT_GT(kernels().get(name).candidate.config.at("tile_k"), 0) << name << " reads A and B from global memory";
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

TEST(MatmulKernelCuda, CompilesToAnObject) {
  const tuner_test::TempDir dir("cuda");
  const Workload w = plain(32, 16, 24);
  const Target t = host_target(TargetKind::cuda);
  ASSERT_EQ(t.kind(), TargetKind::cuda);
  EXPECT_TRUE(t.has_feature("cuda"));
  const std::string object = dir.file("kernel.o");
  ASSERT_NO_THROW(compile_kernel_object(w, t, make_schedule_space(w, TargetKind::cuda)->default_config(),
                                        Builder::symbol_for(w, t), object));
  ASSERT_TRUE(fs::exists(object));
  EXPECT_GT(fs::file_size(object), 1000u);
}

TEST(MatmulKernelCuda, StagedDefaultCompilesToAnObject) {
  const tuner_test::TempDir dir("cuda-staged");
  const Workload w = plain(256, 128, 192);
  const ScheduleConfig c = make_schedule_space(w, TargetKind::cuda)->default_config();
  ASSERT_GT(c.at("tile_k"), 0);
  const std::string object = dir.file("kernel.o");
  const Target cuda = host_target(TargetKind::cuda);
  ASSERT_NO_THROW(compile_kernel_object(w, cuda, c, Builder::symbol_for(w, cuda), object));
  EXPECT_GT(fs::file_size(object), 1000u);
}

}  // namespace
}  // namespace nee
