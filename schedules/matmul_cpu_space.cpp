#include "schedules/matmul_cpu_space.h"

#include <algorithm>

#include "core/matmul_workload.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest (innermost first), for out(n, m, batch...):
//   ni  vector lanes x nr_vecs   register block columns, vectorized and unrolled
//   mi  mr rows                  register block rows, unrolled
//   mt  mc_blocks blocks         rows of one outer tile
//   nt  nc_panels panels         column panels of one outer tile; B's panel packed here
//   then the two outer tile loops (order by loop_order), then batch dims.
// The accumulator lives in registers at mt (kc = 0), or as an mc x NR block at nt with
// the reduction split by kc outside the row blocks (kc > 0).
//
// Measured here (AMD EPYC, 2 cores, AVX2): the default point below -- an 8-wide vector,
// a 4x24 register block and a packed 24-wide panel of B per outer tile -- is the hand
// schedule DESIGN.md reports at 145 GFLOP/s on 1024 cubed (1.16x OpenBLAS). On AVX-512
// the default block is 6 rows by four 16-wide vectors: 24 accumulators of 32 registers.
MatmulCpuSpace::MatmulCpuSpace(const Workload& workload, CpuVectorIsa isa) : workload_(workload), isa_(isa) {
  const MatmulPipeline shape = define_matmul(workload);
  m_ = shape.size_m;
  n_ = shape.size_n;
  k_ = shape.size_k;
  batch_ = 1;
  for (int64_t b : shape.batch_sizes) batch_ *= b;
  b_block_ = matmul_attrs(workload).b_block;
  b_bits_ = matmul_attrs(workload).b_bits;
  a_bits_ = matmul_attrs(workload).a_bits;
  knobs_ = {
      {"vec", values_up_to({1, 4, 8, 16}, n_), "vector width in floats"},
      {"nr_vecs", {1, 2, 3, 4}, "vectors per register-block row (NR = vec * nr_vecs)"},
      {"mr", values_up_to({1, 2, 3, 4, 6, 7, 8}, m_), "rows of the register block"},
      {"mc_blocks", {1, 2, 4, 8, 16, 32, 64}, "register blocks per outer tile in M (MC = mr * mc_blocks)"},
      {"nc_panels", {1, 2, 4, 8, 16, 32}, "column panels per outer tile in N (NC = NR * nc_panels)"},
      {"kc", values_up_to({0, 64, 128, 256, 512}, k_ - 1), "reduction block (0: no split)"},
      {"unroll_k", {1, 2, 4}, "unroll factor of the reduction loop"},
      {"pack_b", {0, 1}, "pack a panel of B contiguously per outer tile"},
      {"loop_order", {0, 1}, "0: column tiles outermost; 1: row tiles outermost"},
      {"parallel", {0, 1, 2}, "0: serial; 1: outermost tile loop; 2: both tile loops fused"},
  };
}

namespace {

constexpr int64_t kMinParallelTasks = 8;

// Rows of M a schedule computes. Halide shifts a ragged last register block inwards, so
// the rows it overlaps are computed twice; the outer tile loops are guarded instead
// (GuardWithIf in apply), so a ragged last outer tile costs nothing. Shifted outer
// tiles computed 256 rows for ViT's 197 (197x384x1536 ran at 170 GFLOP/s, guarded at
// 216; oneDNN 229).
int64_t computed_rows(int64_t m, int64_t mr) { return ceil_div(m, mr) * mr; }
// Columns of N likewise: a ragged last register block's columns shift inwards.
int64_t computed_columns(int64_t n, int64_t nr) { return ceil_div(n, nr) * nr; }

// Register blocks per outer tile: enough for all of M, up to 32 (MC = 192 rows: 8 parallel
// tasks at M = 1024). B's packed panel is reused once per block and packed once per row tile.
int64_t outer_tile_blocks(int64_t m, int64_t mr) {
  int64_t mc_blocks = 1;
  while (mc_blocks < 32 && mr * mc_blocks < m) mc_blocks *= 2;
  return mc_blocks;
}

}  // namespace

ScheduleConfig MatmulCpuSpace::default_config() const {
  // The hand schedule, cut to the workload's extents so that small shapes stay valid.
  ScheduleConfig c;
  const bool wide = isa_.wide();
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  // Register blocks that fill the vector registers, best first: at 1024 cubed the 6x64 block
  // in 32-block tiles ran at 158-169 GFLOP/s against 132 for 8x48, when shifted outer tiles
  // still recomputed 1/8 of the rows; guarded, 215-222 (oneDNN 219 in the same run).
  // The default takes the first block whose ragged last blocks, in M and in N, waste at
  // most 1/16 of the product, or else the least wasteful one. ConvNeXt's 3136x384x96
  // (`nee-bench --shape 3136x384x96 --engines nee-default,onednn --repeats 7`) ran 160
  // GFLOP/s in 6x64 blocks (128 columns for 96) against oneDNN's 210, and its 49x768x3072
  // 141 against 175 (54 rows for 49); 8x48 and 7x48 blocks fit them exactly.
  const std::vector<std::pair<int64_t, int64_t>> blocks =
      wide ? std::vector<std::pair<int64_t, int64_t>>{{6, 4}, {8, 3}, {7, 3}}
           : std::vector<std::pair<int64_t, int64_t>>{{4, 3}, {6, 2}};
  int64_t least_computed = 0;
  for (const auto& [wanted_mr, wanted_nr_vecs] : blocks) {
    const int64_t mr = largest_value_up_to(knobs_, "mr", std::min(wanted_mr, m_));
    const int64_t nr_vecs = std::clamp<int64_t>(n_ / c.knobs["vec"], 1, wanted_nr_vecs);
    const int64_t computed = computed_rows(m_, mr) * computed_columns(n_, nr_vecs * c.knobs["vec"]);
    if (least_computed != 0 && computed >= least_computed) continue;
    least_computed = computed;
    c.knobs["mr"] = mr;
    c.knobs["nr_vecs"] = nr_vecs;
    c.knobs["mc_blocks"] = outer_tile_blocks(m_, mr);
    if (computed * 16 <= m_ * n_ * 17) break;
  }
  // Too few row tiles to keep every core busy (M = 64, 128 in BERT and MLP layers):
  // split N into outer tiles as well and parallelize over both.
  const int64_t row_tile = c.knobs["mr"] * c.knobs["mc_blocks"];
  const int64_t row_tiles = (m_ + row_tile - 1) / row_tile;
  int64_t nc_panels = 1;
  if (row_tiles < 8) {
    const int64_t nr = c.knobs["vec"] * c.knobs["nr_vecs"];
    while (nc_panels < 32 && nr * nc_panels * 2 * 8 <= n_ * row_tiles) nc_panels *= 2;
  }
  c.knobs["nc_panels"] = nc_panels;
  c.knobs["kc"] = 0;
  c.knobs["unroll_k"] = 1;
  // A product of one row block (a batch-1 Linear layer) reads each element of B once:
  // packing it only doubles the traffic of a memory-bound kernel. MobileNetV3's
  // 1280->1000 classifier (`nee-tune --op matmul --shape 1x1280x1000`, warm caches): 105
  // us packed, 45-50 us for the best unpacked points of 24.
  // Quantized panels (b_bits) are dequantized into a packed f32 panel once per outer tile,
  // where the row blocks then read it as they read packed weights.
  // An integer product reads its panels of four rows a column in place, as dot products.
  c.knobs["pack_b"] = m_ <= c.knobs["mr"] || (b_block_ != 0 && b_bits_ == 0) || dot_products() ? 0 : 1;
  // Read in place, quantized panels take four rows a step: a 4-bit decoder token's
  // 1024x2720 product (`nee-tune M --time 4m`) ran 84-87 us at unroll_k 4, 109 at 1; its
  // 1024x1024 ones 32 us at 2, 40 at 1.
  if (b_bits_ != 0 && !dot_products() && c.knobs["pack_b"] == 0) {
    c.knobs["unroll_k"] = k_ % 4 == 0 ? 4 : k_ % 2 == 0 ? 2 : 1;
  }
  c.knobs["loop_order"] = 1;
  c.knobs["parallel"] = row_tiles < 8 ? 2 : 1;
  // Small products (BERT's 128-row ones) need smaller tiles for enough tasks.
  const int64_t wanted = std::min(kMinParallelTasks, most_parallel_tasks(c));
  while (parallel_tasks(c) < wanted && c.knobs["nc_panels"] > 1) c.knobs["nc_panels"] /= 2;
  while (parallel_tasks(c) < wanted && c.knobs["mc_blocks"] > 1) c.knobs["mc_blocks"] /= 2;
  return c;
}

std::string MatmulCpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t vec = c.at("vec"), nr = vec * c.at("nr_vecs"), mr = c.at("mr");
  if (nr > n_) return "register block width " + std::to_string(nr) + " exceeds N";
  if (b_block_ != 0 && (b_bits_ == 0 || dot_products()) && c.at("pack_b")) return "B is packed in panels ahead of time";
  if (dot_products() && c.at("kc") != 0) return "an integer product sums all of K in registers";
  if (dot_products() && c.at("unroll_k") * 4 > k_) return "reduction unroll exceeds K / 4";
  // A vector inside one panel is one load; one across two is a gather.
  if (b_block_ != 0 && b_block_ % vec != 0) return "vector width does not divide B's panels";
  // A guarded outer tile (kc = 0) may reach past M, but one twice the size of M adds nothing.
  if (c.at("kc") > 0 ? mr * c.at("mc_blocks") > m_ : c.at("mc_blocks") > 1 && mr * c.at("mc_blocks") / 2 >= m_) {
    return "outer tile rows exceed M";
  }
  if (nr * c.at("nc_panels") > n_) return "outer tile columns exceed N";
  // The accumulators plus one row of B and a broadcast of A must fit in the vector
  // registers (16 on AVX2, 32 on AVX-512), or the block spills.
  const int64_t regs_per_vec = isa_.registers_per_vector(vec);
  if (mr * c.at("nr_vecs") * regs_per_vec + c.at("nr_vecs") * regs_per_vec + 1 > isa_.registers) {
    return "register block does not fit in " + std::to_string(isa_.registers) + " vector registers";
  }
  // With the accumulator held per outer tile (kc > 0), Halide's bounds for it span the
  // row blocks as an interval; a ragged last block (M not a multiple of mr) makes that
  // interval reach past M and read A out of bounds (seen: row 1025 of 1024 with mr = 3).
  if (c.at("kc") > 0 && m_ % mr != 0) return "kc > 0 needs mr to divide M";
  if (c.at("unroll_k") > k_) return "reduction unroll exceeds K";
  if (c.at("kc") > 0 && c.at("unroll_k") > c.at("kc")) return "reduction unroll exceeds kc";
  // A parallel loop of a few tasks waits for its slowest thread to wake: in BERT's
  // model run, linear2 (128x1024x256) ran 480 us with 2 tasks where nee-tune had timed
  // it at 284 us back to back (threads spinning), a 24-task QKV projection 1.26x its
  // tuned time and a 64-task one 1.15x. So a parallel schedule makes at least
  // kMinParallelTasks tasks (4 per core on 2 cores) where the register blocks allow it.
  if (c.at("parallel") > 0 && parallel_tasks(c) < std::min(kMinParallelTasks, most_parallel_tasks(c))) {
    return "parallel loop of " + std::to_string(parallel_tasks(c)) + " tasks (fewer than " +
           std::to_string(kMinParallelTasks) + ")";
  }
  return "";
}

int64_t MatmulCpuSpace::parallel_tasks(const ScheduleConfig& c) const {
  const int64_t nr = c.at("vec") * c.at("nr_vecs"), mr = c.at("mr");
  const int64_t row_tiles = ceil_div(m_, mr * c.at("mc_blocks")), col_tiles = ceil_div(n_, nr * c.at("nc_panels"));
  if (c.at("parallel") == 0) return 1;
  if (c.at("parallel") == 2) return row_tiles * col_tiles * batch_;
  return (c.at("loop_order") == 0 ? col_tiles : row_tiles) * batch_;
}

int64_t MatmulCpuSpace::most_parallel_tasks(const ScheduleConfig& c) const {
  return ceil_div(m_, c.at("mr")) * ceil_div(n_, c.at("vec") * c.at("nr_vecs")) * batch_;
}

namespace {

// An integer product's A (MatmulAttrs::a_bits) quantized once, before the product, its rows
// over the threads: quantized per task, tasks that share rows quantized them again (a
// 128x256x768 product's default point of 24 tasks took 169 us, 2.2x its best point's).
void quantize_rows_first(MatmulPipeline& p, int vec) {
  p.a_quantized.compute_root().parallel(p.a_quantized.args()[1], 8, TailStrategy::GuardWithIf);
  const int width = static_cast<int>(std::min<int64_t>(vec, p.size_k));  // K may be as small as 4
  if (width > 1) p.a_quantized.vectorize(p.a_quantized.args()[0], width);
}

// An integer product's sums in the register block at mt: k.x, four rows of one column,
// vectorized with the columns into one dot product a vector (VNNI's vpdpbusd).
void schedule_integer_product(MatmulPipeline& p, const ScheduleConfig& c, const Var& mt) {
  const int vec = static_cast<int>(c.at("vec"));
  const int unroll_k = static_cast<int>(c.at("unroll_k"));
  p.acc.compute_at(p.out, mt).vectorize(p.n, vec).unroll(p.n).unroll(p.m);
  Stage update = p.acc.update();
  const RVar kx = p.k.x, ky = p.k.y;
  if (unroll_k > 1) {
    RVar ko("ko"), ki("ki");
    update.split(ky, ko, ki, unroll_k).reorder(kx, p.n, p.m, ki, ko).unroll(ki);
  } else {
    update.reorder(kx, p.n, p.m, ky);
  }
  update.atomic().vectorize(kx).vectorize(p.n, vec).unroll(p.n).unroll(p.m);
  quantize_rows_first(p, vec);
}

}  // namespace

ScheduledKernel MatmulCpuSpace::apply(const ScheduleConfig& c) const {
  MatmulPipeline p = define_matmul(workload_, false, isa_.byte_dot_products);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  const int nr = vec * static_cast<int>(c.at("nr_vecs"));
  const int mr = static_cast<int>(c.at("mr"));
  const int kc = static_cast<int>(c.at("kc"));
  const int unroll_k = static_cast<int>(c.at("unroll_k"));

  Var ni("ni"), mi("mi"), nt("nt"), mt("mt"), no("no"), mo("mo");
  // A ragged last register block shifts inwards, which over a padded last panel of B
  // would start its vectors between panels (each load a gather); there it is guarded
  // instead, so its accumulator (rounded up to whole vectors) reads the last panel's
  // zeros, or that panel again past it (define_matmul clamps the panel index), and only
  // its stores past N are left out.
  // The accumulator's extent is bound to the whole block: guarded alone, its extent over
  // the last block was N's remainder, a runtime value, so it lived in memory with a branch
  // per FMA: 256x196x196 ran 74 GFLOP/s, and 172 bound (oneDNN 156-167).
  const bool padded_panels = b_block_ != 0 && n_ % b_block_ != 0;
  p.out.split(p.n, nt, ni, nr, padded_panels ? TailStrategy::GuardWithIf : TailStrategy::Auto).split(p.m, mt, mi, mr);
  if (padded_panels) p.acc.bound_extent(p.n, nr);
  // A guarded last row tile computes only the rows left, where a shifted one recomputes the
  // rows it overlaps; but the accumulator of a kc split spans the whole tile, so there a
  // guarded tile would read A past M (test MatmulKernel.RandomScheduleWithKcSplit).
  p.out.split(mt, mo, mt, static_cast<int>(c.at("mc_blocks")),
              kc == 0 ? TailStrategy::GuardWithIf : TailStrategy::ShiftInwards);
  p.out.split(nt, no, nt, static_cast<int>(c.at("nc_panels")), TailStrategy::GuardWithIf);
  std::vector<VarOrRVar> order = {ni, mi, mt, nt};
  Var inner_tile = c.at("loop_order") == 0 ? mo : no;
  Var outer_tile = c.at("loop_order") == 0 ? no : mo;
  order.push_back(inner_tile);
  order.push_back(outer_tile);
  for (const Var& b : p.batch) order.push_back(b);
  p.out.reorder(order);
  p.out.vectorize(ni, vec).unroll(ni).unroll(mi);

  // Parallelism: the chosen tile loops fused with the batch dims into one parallel loop.
  if (c.at("parallel") > 0) {
    Var fused = outer_tile;
    if (c.at("parallel") == 2) {
      Var both("tiles");
      p.out.fuse(inner_tile, outer_tile, both);
      fused = both;
    }
    for (const Var& b : p.batch) {
      Var next(fused.name() + "_" + b.name());
      p.out.fuse(fused, b, next);
      fused = next;
    }
    p.out.parallel(fused);
  }

  if (dot_products()) {
    schedule_integer_product(p, c, mt);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }
  if (a_bits_ != 0) quantize_rows_first(p, vec);
  RVar k = p.k.x;
  if (kc == 0) {
    p.acc.compute_at(p.out, mt).vectorize(p.n, vec).unroll(p.n).unroll(p.m);
    Stage update = p.acc.update();
    if (unroll_k > 1) {
      RVar ko("ko"), ki("ki");
      update.split(k, ko, ki, unroll_k).reorder(p.n, p.m, ki, ko).unroll(ki);
    } else {
      update.reorder(p.n, p.m, k);
    }
    update.vectorize(p.n, vec).unroll(p.n).unroll(p.m);
  } else {
    // The accumulator is a block of mc rows by NR columns, revisited once per kc slice.
    p.acc.compute_at(p.out, nt).vectorize(p.n, vec).unroll(p.n);
    Stage update = p.acc.update();
    RVar ko("ko"), ki("ki");
    Var mb("mb"), mri("mri");
    update.split(k, ko, ki, kc).split(p.m, mb, mri, mr);
    if (unroll_k > 1) {
      RVar kio("kio"), kii("kii");
      update.split(ki, kio, kii, unroll_k).reorder(p.n, mri, kii, kio, mb, ko).unroll(kii);
    } else {
      update.reorder(p.n, mri, ki, mb, ko);
    }
    update.vectorize(p.n, vec).unroll(p.n).unroll(mri);
  }
  // The packed panel (NR columns by all of K) is made once per column panel of an outer
  // tile and reused by all its row blocks. Halide does not allow computing it inside the
  // accumulator's kc loop, so kc > 0 packs the same whole panel.
  if (c.at("pack_b")) p.b_panel.compute_at(p.out, nt).vectorize(p.n, vec);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
