#include "schedules/matmul_gpu_space.h"

#include <algorithm>
#include <optional>

#include "core/matmul_workload.h"
#include "schedules/gpu_block.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

MatmulGpuSpace::MatmulGpuSpace(const Workload& workload) : workload_(workload) {
  const MatmulPipeline shape = define_matmul(workload);
  m_ = shape.size_m;
  n_ = shape.size_n;
  k_ = shape.size_k;
  batch_sizes_ = shape.batch_sizes;
  const MatmulAttrs attrs = matmul_attrs(workload);
  b_transposed_ = attrs.trans_b;
  a_transposed_ = attrs.trans_a;
  knobs_ = {
      {"threads_n", values_up_to({1, 4, 8, 16, 32}, n_), "threads of a block along N"},
      {"threads_m", values_up_to({1, 2, 4, 8, 16}, m_), "threads of a block along M"},
      {"rows_per_thread", values_up_to({1, 2, 4, 8}, m_), "outputs per thread along M, in registers"},
      {"unroll_k", values_up_to({1, 2, 4, 8}, k_), "unroll factor of the reduction loop"},
      {"cols_per_thread", values_up_to({1, 2, 4, 8}, n_), "outputs per thread along N, in registers", 1},
      {"tile_k", values_up_to({0, 8, 16, 32, 64}, k_), "0: threads read A and B from global memory; else the block stages tile_k-deep slices of A and B in shared memory", 0},
      {"vector_load", {1, 2, 4}, "width of the vector loads that stage a tile", 1},
  };
}

ScheduleConfig MatmulGpuSpace::default_config() const {
  // Staged: a 64 x 64 tile per block of 16 x 8 threads, each thread 4 columns by 8 rows,
  // the block's accumulators (16 KiB) and 32-deep slices of A and B (8 KiB each) in
  // shared memory, loaded as float4. On an H200 at 4096 cubed this ran 4.96 ms against
  // 5.55 ms with 16-deep slices (confirmed medians of 3 rounds; cuBLAS sgemm 2.72 ms).
  // Where that grid has fewer than kGpuBlocksToFill blocks, a 32 x 32 tile of 8 x 8 threads, 4 x 4 outputs each. Shallower
  // slices and narrower loads where K or a transposed B need them; workloads smaller
  // than a tile keep the direct form below.
  struct Tile {
    int64_t threads_n, threads_m, rows, cols;
  };
  // The deepest slice and widest load that fit a tile.
  const auto staged = [&](const Tile& t) -> std::optional<ScheduleConfig> {
    for (const int64_t tile_k : {32, 16, 8}) {
      for (const int64_t vec : {4, 2, 1}) {
        ScheduleConfig c;
        c.knobs = {{"threads_n", t.threads_n}, {"threads_m", t.threads_m}, {"rows_per_thread", t.rows},
                   {"cols_per_thread", t.cols}, {"tile_k", tile_k},         {"vector_load", vec},
                   {"unroll_k", 4}};
        if (check(c).empty()) return c;
      }
    }
    return std::nullopt;
  };
  std::optional<ScheduleConfig> most_blocks;
  for (const Tile& t : {Tile{16, 8, 8, 4}, Tile{8, 8, 4, 4}}) {
    const std::optional<ScheduleConfig> c = staged(t);
    if (!c) continue;
    if (blocks(*c) >= kGpuBlocksToFill) return *c;
    if (!most_blocks || blocks(*c) > blocks(*most_blocks)) most_blocks = c;
  }
  if (most_blocks) return *most_blocks;

  ScheduleConfig c;
  c.knobs["threads_n"] = largest_value_up_to(knobs_, "threads_n", 16);
  c.knobs["threads_m"] = largest_value_up_to(knobs_, "threads_m", 8);
  c.knobs["rows_per_thread"] = 1;
  c.knobs["cols_per_thread"] = 1;
  c.knobs["tile_k"] = 0;
  c.knobs["vector_load"] = 1;
  c.knobs["unroll_k"] = largest_value_up_to(knobs_, "unroll_k", 4);
  while (c.knobs["threads_m"] * c.knobs["rows_per_thread"] > m_ && c.knobs["threads_m"] > 1) {
    c.knobs["threads_m"] /= 2;
  }
  return c;
}

int64_t MatmulGpuSpace::blocks(const ScheduleConfig& c) const {
  const auto tiles = [](int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; };
  int64_t batches = 1;
  for (int64_t b : batch_sizes_) batches *= b;
  return tiles(n_, c.at("threads_n") * c.at("cols_per_thread")) * tiles(m_, c.at("threads_m") * c.at("rows_per_thread")) *
         batches;
}

std::string MatmulGpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t tn = c.at("threads_n"), tm = c.at("threads_m");
  const int64_t block_m = tm * c.at("rows_per_thread"), block_n = tn * c.at("cols_per_thread");
  if (block_m > m_) return "block rows exceed M";
  if (block_n > n_) return "block columns exceed N";
  if (tn * tm > kGpuMaxThreadsPerBlock) return "a block has more than 1024 threads";
  const int64_t tile_k = c.at("tile_k"), vec = c.at("vector_load");
  if (tile_k == 0) {
    if (vec != 1) return "vector_load applies to staged tiles only (tile_k > 0)";
    return "";
  }
  if (k_ % tile_k) return "tile_k does not divide K";
  if (tile_k % c.at("unroll_k")) return "unroll_k does not divide tile_k";
  // Every thread loads the same number of whole vectors of each tile, and a vector runs
  // along the operand's contiguous dim inside the tile.
  const int64_t threads = tn * tm;
  if ((tile_k * block_m) % (threads * vec) || (tile_k * block_n) % (threads * vec)) {
    return "the staged tiles do not split into whole vector_load-wide loads per thread";
  }
  // A thread's loads of a slice are unrolled: past 32 of them, a point of few threads
  // would unroll hundreds (256 at tile_k 32, 8 rows, one thread).
  if (std::max(tile_k * block_m, tile_k * block_n) / (threads * vec) > 32) {
    return "a thread would load more than 32 vectors of a staged slice";
  }
  const int64_t a_inner = a_transposed_ ? block_m : tile_k;
  if (a_inner % vec) return "vector_load does not divide A's tile along its contiguous dim";
  if (vec > 1 && b_transposed_) return "B is read transposed, so its tile has no contiguous rows to load as vectors";
  if (block_n % vec) return "vector_load does not divide B's tile along its contiguous dim";
  const int64_t shared_bytes = 4 * (block_m * block_n + tile_k * (block_m + block_n));
  if (shared_bytes > kGpuSharedBytesPerBlock) return "the staged tiles exceed 48 KiB of shared memory";
  return "";
}

ScheduledKernel MatmulGpuSpace::apply(const ScheduleConfig& c) const {
  MatmulPipeline p = define_matmul(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int tn = static_cast<int>(c.at("threads_n"));
  const int tm = static_cast<int>(c.at("threads_m"));
  const int rows = static_cast<int>(c.at("rows_per_thread"));
  const int cols = static_cast<int>(c.at("cols_per_thread"));
  const int unroll_k = static_cast<int>(c.at("unroll_k"));
  const int tile_k = static_cast<int>(c.at("tile_k"));
  const int vec = static_cast<int>(c.at("vector_load"));

  // A block covers tn x cols columns by tm x rows rows of the output; thread (ntd, mtd)
  // owns a cols x rows patch of adjacent outputs.
  Var nb("nb"), ni("ni"), ntd("ntd"), nr("nr"), mb("mb"), mi("mi"), mtd("mtd"), mr("mr");
  std::vector<VarOrRVar> patch_order = {nr, mr, ntd, mtd, nb, mb};
  for (const Var& b : p.batch) patch_order.push_back(b);
  const auto tile = [&](auto& stage) {
    stage.split(p.n, nb, ni, tn * cols).split(ni, ntd, nr, cols).split(p.m, mb, mi, tm * rows).split(mi, mtd, mr, rows);
  };
  tile(p.out);
  p.out.reorder(patch_order).unroll(nr).unroll(mr);
  Var block_m = mb;
  for (const Var& b : p.batch) {
    Var next(block_m.name() + "_" + b.name());
    p.out.fuse(block_m, b, next);
    block_m = next;
  }
  p.out.gpu_blocks(nb, block_m).gpu_threads(ntd, mtd);

  if (tile_k == 0) {
    // Direct: each thread accumulates its patch in registers, reading A and B from
    // global memory (through the caches) at every step of k.
    p.acc.compute_at(p.out, ntd).unroll(p.n).unroll(p.m);
    Stage update = p.acc.update();
    if (unroll_k > 1) {
      RVar ko("ko"), ki("ki");
      update.split(p.k.x, ko, ki, unroll_k).reorder(p.n, p.m, ki, ko).unroll(ki);
    } else {
      update.reorder(p.n, p.m, p.k.x);
    }
    update.unroll(p.n).unroll(p.m);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }

  // Staged. Halide allocates whatever is computed between the block and thread loops in
  // shared memory, and a thread's registers cannot outlive a thread loop. So the block's
  // accumulators live in shared memory, and the reduction is split (rfactor) into
  // tile_k-deep partial sums that each thread keeps in registers: per slice of k the
  // block loads A's and B's slices into shared memory, each thread sums its patch over
  // the slice, then adds it to the accumulators (one read and write each per slice).
  p.acc.compute_at(p.out, nb);
  tile(p.acc);
  p.acc.reorder(patch_order).unroll(nr).unroll(mr).gpu_threads(ntd, mtd);
  RVar ko("ko"), ki("ki");
  p.acc.update().split(p.k.x, ko, ki, tile_k);
  Var slice("slice");
  Func partial = p.acc.update().rfactor(ko, slice);
  Stage sum = p.acc.update();
  tile(sum);
  std::vector<VarOrRVar> sum_order = {nr, mr, ntd, mtd, ko, nb, mb};
  for (const Var& b : p.batch) sum_order.push_back(b);
  sum.reorder(sum_order).unroll(nr).unroll(mr).gpu_threads(ntd, mtd);

  partial.compute_at(p.acc, ntd).unroll(p.n).unroll(p.m);
  Stage partial_sum = partial.update();
  if (unroll_k > 1) {
    RVar kio("kio"), kii("kii");
    partial_sum.split(ki, kio, kii, unroll_k).reorder(p.n, p.m, kii, kio).unroll(kii);
  } else {
    partial_sum.reorder(p.n, p.m, ki);
  }
  partial_sum.unroll(p.n).unroll(p.m);

  // The block's threads load each slice together: the slice's first two dims fused,
  // vec-wide loads along the contiguous one, consecutive threads on consecutive vectors.
  const auto stage_slice = [&](Func slice_func) {
    const std::vector<Var> args = slice_func.args();
    Var fused("fused"), fo("fo"), fi("fi"), fv("fv"), fx("fx"), fy("fy");
    slice_func.compute_at(p.acc, ko)
        .store_in(MemoryType::GPUShared)
        .fuse(args[0], args[1], fused)
        .split(fused, fo, fi, tn * tm * vec)
        .split(fi, fi, fv, vec)
        .split(fi, fy, fx, tn)
        .reorder(fv, fx, fy, fo)
        .unroll(fo)
        .gpu_threads(fx, fy);
    if (vec > 1) slice_func.vectorize(fv);
  };
  stage_slice(p.a.in(partial));
  stage_slice(p.b_panel);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
