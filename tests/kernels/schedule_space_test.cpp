// Schedule spaces: the default point and random points are valid; invalid points are
// rejected with a reason before any compile, and schedule() refuses them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/attention_workload.h"
#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/layernorm_workload.h"
#include "core/matmul_workload.h"
#include "core/pool2d_workload.h"
#include "core/softmax_workload.h"
#include "core/resize_workload.h"
#include "core/strided_copy_workload.h"
#include "schedules/schedule_space.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

Workload shape(int64_t m, int64_t k, int64_t n) {
  return make_matmul_workload({DType::f32, {m, k}}, {DType::f32, {k, n}}, nullptr, MatmulAttrs{});
}

struct Shape {
  int64_t m, k, n;
};
const std::vector<Shape> kShapes = {{1, 1, 1}, {3, 2, 5}, {2, 7, 1}, {7, 13, 5}, {129, 65, 33}, {256, 256, 256}};
const std::vector<TargetKind> kKinds = {TargetKind::cpu, TargetKind::opencl};

std::string where(const Shape& s, TargetKind kind) {
  return to_string(kind) + " " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

TEST(ScheduleSpace, DefaultPointIsInDomainAndValid) {
  for (TargetKind kind : kKinds) {
    for (const Shape& s : kShapes) {
      const auto space = make_schedule_space(shape(s.m, s.k, s.n), kind);
      const ScheduleConfig c = space->default_config();
      EXPECT_EQ(c.knobs.size(), space->knobs().size()) << where(s, kind);
      for (const Knob& knob : space->knobs()) {
        ASSERT_TRUE(c.knobs.count(knob.name)) << where(s, kind) << " lacks " << knob.name;
        EXPECT_NE(std::find(knob.values.begin(), knob.values.end(), c.at(knob.name)), knob.values.end())
            << where(s, kind) << ": " << knob.name << "=" << c.at(knob.name);
        EXPECT_FALSE(knob.values.empty());
      }
      EXPECT_EQ(space->check(c), "") << where(s, kind) << ": " << c.to_string();
    }
  }
}

TEST(ScheduleSpace, OutOfDomainValueIsRejected) {
  const auto space = make_schedule_space(shape(64, 64, 64), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs["vec"] = 5;
  const std::string why = space->check(c);
  EXPECT_NE(why.find("vec"), std::string::npos) << why;
  EXPECT_NE(why.find("domain"), std::string::npos) << why;
}

TEST(ScheduleSpace, DomainIsCutToTheShape) {
  // N = 3: vec 4 would exceed N, so the domain holds only 1.
  const auto space = make_schedule_space(shape(3, 2, 3), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs["vec"] = 4;
  EXPECT_NE(space->check(c).find("vec"), std::string::npos);
}

TEST(ScheduleSpace, MissingKnobIsRejected) {
  const auto space = make_schedule_space(shape(64, 64, 64), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs.erase("mr");
  const std::string why = space->check(c);
  EXPECT_NE(why.find("mr"), std::string::npos) << why;
  EXPECT_NE(why.find("missing"), std::string::npos) << why;
}

TEST(ScheduleSpace, ExtraKnobIsRejected) {
  for (TargetKind kind : kKinds) {
    const auto space = make_schedule_space(shape(64, 64, 64), kind);
    ScheduleConfig c = space->default_config();
    c.knobs["warp_speed"] = 1;
    EXPECT_FALSE(space->check(c).empty()) << to_string(kind);
  }
}

TEST(ScheduleSpace, RegisterBlockTooBigIsRejected) {
  const auto space = make_schedule_space(shape(256, 256, 256), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs["vec"] = 8;
  c.knobs["nr_vecs"] = 4;
  c.knobs["mr"] = 8;  // 32 accumulators + 4 + 1 > 16 registers
  c.knobs["mc_blocks"] = 1;
  c.knobs["nc_panels"] = 1;
  const std::string why = space->check(c);
  EXPECT_NE(why.find("register"), std::string::npos) << why;
}

// BERT's linear2: 128x1024 by 1024x256 in one row tile of 128 and two column tiles of 128
// is two parallel tasks, too few for two cores; the default makes at least eight.
TEST(ScheduleSpace, ParallelLoopOfFewTasksIsRejected) {
  const auto space = make_schedule_space(shape(128, 1024, 256), host_target(TargetKind::cpu));
  ScheduleConfig c = space->default_config();
  c.knobs["vec"] = 8;  // a 4x16 block fits AVX2's registers as well as AVX-512's
  c.knobs["nr_vecs"] = 2;
  c.knobs["mr"] = 4;
  c.knobs["mc_blocks"] = 32;
  c.knobs["nc_panels"] = 8;
  c.knobs["kc"] = 0;
  c.knobs["unroll_k"] = 1;
  c.knobs["parallel"] = 2;
  const std::string why = space->check(c);
  EXPECT_NE(why.find("2 tasks"), std::string::npos) << why;
  c.knobs["parallel"] = 0;  // serial is a choice of its own
  EXPECT_EQ(space->check(c), "");
  c.knobs["parallel"] = 2;
  c.knobs["mc_blocks"] = 8;  // 4 row tiles x 2 column tiles
  EXPECT_EQ(space->check(c), "");
  EXPECT_EQ(space->check(space->default_config()), "");
  // A product too small for eight tasks may use all it has.
  const auto tiny = make_schedule_space(shape(8, 8, 16), host_target(TargetKind::cpu));
  EXPECT_EQ(tiny->check(tiny->default_config()), "");
}

// The default register block wastes little on ragged shapes: on AVX-512, ConvNeXt's
// 3136x384x96 in 8x48 blocks (6x64 computed 128 columns for 96) and its 49-row products
// in 7-row blocks (6 computed 54 rows); 1024 cubed keeps the 6x64 block.
TEST(ScheduleSpace, DefaultMatmulBlocksFitRaggedShapes) {
  Target avx512;
  avx512.halide = isa_level_named("avx512_skylake").halide;
  const auto block = [&](int64_t m, int64_t k, int64_t n) {
    const ScheduleConfig c = make_schedule_space(shape(m, k, n), avx512)->default_config();
    EXPECT_EQ(c.at("vec"), 16);
    return std::make_pair(c.at("mr"), c.at("nr_vecs"));
  };
  EXPECT_EQ(block(3136, 384, 96), std::make_pair(int64_t{8}, int64_t{3}));
  EXPECT_EQ(block(49, 768, 3072), std::make_pair(int64_t{7}, int64_t{3}));
  EXPECT_EQ(block(1024, 1024, 1024), std::make_pair(int64_t{6}, int64_t{4}));
  EXPECT_EQ(block(197, 384, 1536), std::make_pair(int64_t{6}, int64_t{4}));
}

TEST(ScheduleSpace, TileLargerThanTheShapeIsRejected) {
  const auto space = make_schedule_space(shape(8, 8, 8), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs["mr"] = 8;
  c.knobs["mc_blocks"] = 2;  // 16 rows > M = 8
  EXPECT_NE(space->check(c).find("exceed M"), std::string::npos) << space->check(c);
}

TEST(ScheduleSpace, ScheduleThrowsOnInvalidPoint) {
  const auto space = make_schedule_space(shape(64, 64, 64), TargetKind::cpu);
  ScheduleConfig c = space->default_config();
  c.knobs["vec"] = 3;
  try {
    space->schedule(c);
    FAIL() << "schedule() accepted an invalid point";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vec"), std::string::npos) << e.what();
  }
  c = space->default_config();
  c.knobs.erase("kc");
  EXPECT_THROW(space->schedule(c), Error);
}

TEST(ScheduleSpace, RandomPointsAreAlwaysValid) {
  for (TargetKind kind : kKinds) {
    for (const Shape& s : kShapes) {
      const auto space = make_schedule_space(shape(s.m, s.k, s.n), kind);
      std::mt19937_64 rng(42 + s.m);
      for (int i = 0; i < 100; ++i) {
        const ScheduleConfig c = space->random_config(rng);
        ASSERT_EQ(space->check(c), "") << where(s, kind) << ": " << c.to_string();
      }
    }
  }
}

TEST(ScheduleSpace, RandomPointsVary) {
  const auto space = make_schedule_space(shape(129, 65, 33), TargetKind::cpu);
  std::mt19937_64 rng(7);
  std::set<ScheduleConfig> seen;
  for (int i = 0; i < 100; ++i) seen.insert(space->random_config(rng));
  EXPECT_GT(seen.size(), 50u);
}

// Each workload's default point and 50 random points pass its spaces' checks, CPU and GPU.
void expect_valid_points(const std::vector<Workload>& workloads) {
  for (TargetKind kind : kKinds) {
    for (const Workload& w : workloads) {
      const auto space = make_schedule_space(w, kind);
      EXPECT_EQ(space->check(space->default_config()), "") << space->name() << " " << w.key();
      std::mt19937_64 rng(5);
      for (int i = 0; i < 50; ++i) {
        const ScheduleConfig c = space->random_config(rng);
        ASSERT_EQ(space->check(c), "") << space->name() << " " << w.key() << ": " << c.to_string();
      }
    }
  }
}

// Pool2d, softmax and layernorm: defaults and random points valid for CPU and GPU at
// awkward and real shapes; the window unroll limit rejects a 9-wide kx unroll.
TEST(ScheduleSpace, PoolSoftmaxLayernormPointsAreValid) {
  const TensorType x{DType::f32, {1, 3, 13, 7}};
  Pool2dAttrs max3;
  max3.kernel = {3, 3};
  max3.strides = {2, 2};
  max3.pads = {1, 1, 1, 1};
  const TensorType row{DType::f32, {768}};
  const std::vector<Workload> workloads = {
      make_pool2d_workload(x, max3, false),
      make_global_pool2d_workload({DType::f32, {1, 512, 7, 7}}, PoolKind::average),
      make_softmax_workload({DType::f32, {1, 12, 128, 128}}, -1),
      make_softmax_workload({DType::f32, {2, 7, 5}}, 1),
      make_softmax_workload({DType::f32, {13}}, 0),
      make_layernorm_workload({DType::f32, {1, 128, 768}}, row, &row, -1, 1e-5),
      make_layernorm_workload({DType::f32, {7}}, {DType::f32, {7}}, nullptr, 0, 1e-5),
  };
  expect_valid_points(workloads);
  Pool2dAttrs wide;
  wide.kernel = {1, 9};
  const auto pool_space =
      make_schedule_space(make_pool2d_workload({DType::f32, {1, 3, 13, 11}}, wide, false), TargetKind::cpu);
  ScheduleConfig c = pool_space->default_config();
  EXPECT_EQ(c.at("unroll_window"), 0);
  c.knobs["unroll_window"] = 1;
  EXPECT_NE(pool_space->check(c).find("kx unroll"), std::string::npos);
}

// Every CPU ISA level's default points are valid, ARM's NEON (4 lanes, 32 registers)
// among them: the wide register blocks measured on AVX-512 would spill there.
TEST(ScheduleSpace, DefaultPointsAreValidAtEveryIsaLevel) {
  const TensorType row{DType::f32, {768}};
  std::vector<Workload> workloads = {
      shape(256, 256, 256),
      shape(1, 512, 10),
      shape(128, 768, 768),
      make_global_pool2d_workload({DType::f32, {1, 512, 7, 7}}, PoolKind::average),
      make_softmax_workload({DType::f32, {1, 12, 128, 128}}, -1),
      make_layernorm_workload({DType::f32, {1, 128, 768}}, row, &row, -1, 1e-5),
      strided_copy_workload_from_shape("1x128x4x64,perm=0x2x3x1"),
      resize_workload_from_shape("1x21x28x28,size=224x224"),
      resize_workload_from_shape("1x256x1x1,size=14x14,mode=nearest"),
      // Attention whose output rows fill more than SSE4.1's and AVX2's 16 registers: a
      // block of one row spills there, and the default takes it (ViT's at SSE4.1 failed
      // to build once nee-tune fused attention by default).
      attention_workload_from_shape("6x197x197x64,layout=sgd"),
      attention_workload_from_shape("16x256x256x24"),
      attention_workload_from_shape("4x64x64x64,dv=256,mask=causal"),
  };
  // Each conv as given and in the runtime's forms: blocked activations, and Winograd.
  for (const char* conv : {"1x64x56x56,64x3x3,s1,p1", "1x256x14x14,1024x1x1", "1x256x4x4,512x1x1,s2",
                           "1x512x7x7,512x3x3,s1,p1", "1x128x28x28,128x3x3,s2,p1", "1x128x28x28,128x3x3,s1,p1",
                           "1x256x14x14,256x3x3,s1,p1", "1x96x56x56,96x3x3,s1,p1,g96",
                           "1x3x224x224,64x7x7,s2,p3"}) {
    const Workload w = conv2d_workload_from_shape(conv);
    workloads.push_back(w);
    workloads.push_back(conv2d_runtime_layout(w, true));
    workloads.push_back(conv2d_runtime_layout(w, true, true));
  }
  for (const IsaLevel& level : isa_levels()) {
    Target target;
    target.halide = level.halide;
    for (const Workload& w : workloads) {
      const auto space = make_schedule_space(w, target);
      EXPECT_EQ(space->check(space->default_config()), "") << level.name << ": " << w.key();
    }
  }
}

// Strided copies: defaults and random points valid for CPU and GPU, for copies that keep
// the innermost dim (rows: no tile knobs) and transposes that move it (2-D tiles).
TEST(ScheduleSpace, StridedCopyPointsAreValid) {
  const std::vector<Workload> workloads = {
      strided_copy_workload_from_shape("1x128x4x64,perm=0x2x1x3"),
      strided_copy_workload_from_shape("1x128x4x64,perm=0x2x3x1"),
      strided_copy_workload_from_shape("13x9,perm=1x0"),
      strided_copy_workload_from_shape("2x3x5x7x4,perm=3x0x4x1x2"),
      strided_copy_workload_from_shape("1x128x2304,starts=0x0x768,ends=1x128x1536"),
      strided_copy_workload_from_shape("3x17x11,starts=1x3x0,steps=1x2x1"),
      strided_copy_workload_from_shape("29,starts=2,steps=3,ends=28"),
      strided_copy_workload_from_shape("1,perm=0"),
      strided_copy_workload_from_shape("1x3x24,perm=2x1x0"),
  };
  expect_valid_points(workloads);
  const auto knob_values = [](const ScheduleSpace& space, const std::string& name) {
    for (const Knob& k : space.knobs()) {
      if (k.name == name) return k.values;
    }
    return std::vector<int64_t>{};
  };
  const auto rows = make_schedule_space(workloads[0], TargetKind::cpu);
  EXPECT_EQ(knob_values(*rows, "tile_x"), (std::vector<int64_t>{0}));
  EXPECT_EQ(knob_values(*rows, "stage"), (std::vector<int64_t>{0}));
  // A tile no wider than the output's single-element rows.
  EXPECT_EQ(knob_values(*make_schedule_space(workloads.back(), TargetKind::cpu), "tile_x"), (std::vector<int64_t>{1}));
  const auto tiles = make_schedule_space(workloads[1], TargetKind::cpu);
  EXPECT_EQ(knob_values(*tiles, "stage"), (std::vector<int64_t>{0, 1}));
  ScheduleConfig c = tiles->default_config();
  c.knobs["vec"] = 8;
  c.knobs["tile_y"] = 4;
  c.knobs["stage"] = 1;
  EXPECT_NE(tiles->check(c).find("stage needs vec > 1 dividing tile_y"), std::string::npos) << tiles->check(c);

  const auto gpu_tiles = make_schedule_space(workloads[1], TargetKind::opencl);
  ScheduleConfig g = gpu_tiles->default_config();
  EXPECT_EQ(g.at("stage"), 1);
  EXPECT_EQ(g.at("threads_x"), g.at("threads_y") * g.at("rows_per_thread"));
  g.knobs["rows_per_thread"] = 1;
  EXPECT_NE(gpu_tiles->check(g).find("stage needs a square tile"), std::string::npos) << gpu_tiles->check(g);
  g.knobs["stage"] = 0;
  g.knobs["threads_x"] = 64;
  g.knobs["threads_y"] = 32;
  EXPECT_NE(gpu_tiles->check(g).find("more than 1024 threads"), std::string::npos) << gpu_tiles->check(g);
}

// Resizes: defaults and random points valid for CPU and GPU, upsampling and down, linear
// and nearest, rank 2 to 5. Linear upsampling interpolates each input row once by
// default, downsampling gathers; nearest has nothing to stage; a parallel loop needs two
// tasks.
TEST(ScheduleSpace, ResizePointsAreValid) {
  const std::vector<Workload> workloads = {
      resize_workload_from_shape("1x21x28x28,size=224x224"),
      resize_workload_from_shape("1x8x57x33,size=19x11"),
      resize_workload_from_shape("1x256x1x1,size=14x14,mode=nearest"),
      resize_workload_from_shape("5x7,size=3x30,coordinates=align_corners"),
      resize_workload_from_shape("2x3x4x5x6,size=9x2,mode=nearest,nearest_mode=ceil"),
      resize_workload_from_shape("1x1,size=1x1"),
  };
  expect_valid_points(workloads);
  const auto cpu = [&](size_t i) { return make_schedule_space(workloads[i], TargetKind::cpu); };
  EXPECT_EQ(cpu(0)->default_config().at("stage"), 1);
  EXPECT_EQ(cpu(1)->default_config().at("stage"), 0);
  const auto nearest = cpu(2);
  for (const Knob& k : nearest->knobs()) {
    if (k.name == "stage") {
      EXPECT_EQ(k.values, (std::vector<int64_t>{0}));
    }
  }
  EXPECT_EQ(cpu(5)->default_config().at("parallel"), 0);
  ScheduleConfig c = cpu(1)->default_config();
  c.knobs["rows"] = 16;
  c.knobs["parallel"] = 1;
  EXPECT_EQ(cpu(1)->check(c), "") << "19 rows in tasks of 16 are 2 tasks";
  const auto plane = make_schedule_space(resize_workload_from_shape("1x1x4x5,size=8x10"), TargetKind::cpu);
  c = plane->default_config();
  c.knobs["rows"] = 8;
  c.knobs["parallel"] = 1;
  EXPECT_NE(plane->check(c).find("a parallel loop of one task"), std::string::npos) << plane->check(c);
}

// The MatMul GPU space stages A and B in shared memory by default where the workload
// holds whole tiles, in 64 x 64 tiles where they fill the GPU and 32 x 32 ones where
// they would leave it idle, reads them from global memory where it does not, and
// rejects staged points that the tiles cannot serve.
TEST(ScheduleSpace, MatmulGpuStagesWhereTheTilesFit) {
  const ScheduleConfig large = make_schedule_space(shape(2048, 2048, 2048), TargetKind::cuda)->default_config();
  EXPECT_EQ(large.at("threads_n") * large.at("cols_per_thread"), 64);
  EXPECT_EQ(large.at("tile_k"), 32);
  const auto big = make_schedule_space(shape(256, 256, 256), TargetKind::opencl);
  ScheduleConfig c = big->default_config();
  EXPECT_EQ(c.at("threads_n") * c.at("cols_per_thread"), 32) << "64 x 64 tiles would make a grid of 16 blocks";
  EXPECT_EQ(c.at("tile_k"), 32);
  EXPECT_EQ(c.at("vector_load"), 4);
  EXPECT_EQ(make_schedule_space(shape(7, 13, 5), TargetKind::opencl)->default_config().at("tile_k"), 0);

  const auto reason = [&](const std::map<std::string, int64_t>& changes) {
    ScheduleConfig changed = big->default_config();
    for (const auto& [knob, value] : changes) changed.knobs[knob] = value;
    return big->check(changed);
  };
  EXPECT_NE(reason({{"tile_k", 0}}).find("vector_load applies to staged tiles only"), std::string::npos);
  EXPECT_NE(reason({{"unroll_k", 32}}).find("domain"), std::string::npos);
  EXPECT_NE(reason({{"tile_k", 8}, {"unroll_k", 8}, {"threads_n", 32}, {"threads_m", 16}}).find("whole vector_load-wide loads"),
            std::string::npos);
  EXPECT_NE(reason({{"threads_n", 16}, {"threads_m", 16}, {"cols_per_thread", 8}, {"rows_per_thread", 8}})
                .find("48 KiB of shared memory"),
            std::string::npos);

  const auto odd_k = make_schedule_space(shape(64, 40, 64), TargetKind::opencl);
  ScheduleConfig k40 = odd_k->default_config();
  EXPECT_EQ(k40.at("tile_k"), 8) << "32- and 16-deep slices do not divide K = 40, so the default falls back";
  k40.knobs["tile_k"] = 16;
  EXPECT_NE(odd_k->check(k40).find("tile_k does not divide K"), std::string::npos) << odd_k->check(k40);

  MatmulAttrs transposed;
  transposed.trans_b = true;
  const auto trans_b = make_schedule_space(
      make_matmul_workload({DType::f32, {64, 64}}, {DType::f32, {64, 64}}, nullptr, transposed), TargetKind::opencl);
  ScheduleConfig t = trans_b->default_config();
  EXPECT_EQ(t.at("vector_load"), 1) << "B read transposed has no contiguous rows to load as vectors";
  t.knobs["vector_load"] = 4;
  EXPECT_NE(trans_b->check(t).find("B is read transposed"), std::string::npos) << trans_b->check(t);
}

// A MatMul GPU point stored before the space had register columns and staging means what
// it meant then: one column per thread, read from global memory.
TEST(ScheduleSpace, MatmulGpuPointsWithoutStagingKnobsStayValid) {
  const auto space = make_schedule_space(shape(256, 256, 256), TargetKind::opencl);
  ScheduleConfig old;
  old.knobs = {{"threads_n", 16}, {"threads_m", 8}, {"rows_per_thread", 1}, {"unroll_k", 4}};
  EXPECT_EQ(space->check(old), "");
  const ScheduleConfig completed = space->complete(old);
  EXPECT_EQ(completed.at("cols_per_thread"), 1);
  EXPECT_EQ(completed.at("tile_k"), 0);
  EXPECT_EQ(completed.at("vector_load"), 1);
}

// Softmax and layernorm on a GPU give a row of 128 or more a block of its own, each
// thread at least 4 of its elements; short rows keep a thread per row; points that mix
// the two are rejected.
TEST(ScheduleSpace, GpuRowSpacesShareLongRowsAcrossThreads) {
  const TensorType hidden{DType::f32, {768}};
  const auto layernorm =
      make_schedule_space(make_layernorm_workload({DType::f32, {128, 768}}, hidden, &hidden, -1, 1e-5), TargetKind::cuda);
  ScheduleConfig c = layernorm->default_config();
  EXPECT_EQ(c.at("row_threads"), 128);
  EXPECT_EQ(c.at("threads"), 1);
  const auto softmax = make_schedule_space(make_softmax_workload({DType::f32, {1, 12, 128, 128}}, -1), TargetKind::cuda);
  EXPECT_EQ(softmax->default_config().at("row_threads"), 32);
  EXPECT_EQ(make_schedule_space(make_softmax_workload({DType::f32, {64, 16}}, -1), TargetKind::cuda)
                ->default_config()
                .at("row_threads"),
            1);

  c.knobs["threads"] = 8;
  EXPECT_NE(layernorm->check(c).find("takes threads = 1"), std::string::npos) << layernorm->check(c);
  c.knobs["threads"] = 1;
  c.knobs["split_reduce"] = 4;
  EXPECT_NE(layernorm->check(c).find("split_reduce must be 1"), std::string::npos) << layernorm->check(c);
  const auto odd = make_schedule_space(make_softmax_workload({DType::f32, {4, 200}}, -1), TargetKind::cuda);
  ScheduleConfig o = odd->default_config();
  EXPECT_EQ(o.at("row_threads"), 1) << "no row_threads value divides 200";
  o.knobs["row_threads"] = 32;
  o.knobs["split_reduce"] = 1;
  o.knobs["threads"] = 1;
  EXPECT_NE(odd->check(o).find("does not divide the row's length"), std::string::npos) << odd->check(o);
}

TEST(ScheduleSpace, UnknownFamilyIsRefused) {
  Workload w = shape(4, 4, 4);
  w.op = "conv";
  EXPECT_THROW(make_schedule_space(w, TargetKind::cpu), Error);
}

}  // namespace
}  // namespace nee
