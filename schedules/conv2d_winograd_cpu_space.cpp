#include "schedules/conv2d_winograd_cpu_space.h"

#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "kernels/conv2d_algorithm.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first:
//   tasks: `rows` tile rows (x batch; with `parallel` 1 also the channel tiles), parallel
//     wino_input over the task's tiles and every input channel: 16 channels vectorized,
//     xi and nu unrolled so each transform is straight-line code
//   channel tiles of oc_blocks weight blocks, then the task's tile rows
//     (product_at 1: blocks of px tiles of the row)
//     wino_product of the row's tiles (or the block's): for each block of px tiles,
//     each (xi, nu): the register block (oc_blocks vectors by px tiles) summed over the
//     input channels, then stored
//     out: per tile and weight block, A^T M A and the epilogue, 16 channels vectorized,
//     the m x m outputs unrolled
Conv2dWinogradCpuSpace::Conv2dWinogradCpuSpace(const Workload& workload, CpuVectorIsa isa, CpuCaches caches)
    : workload_(workload), isa_(isa), caches_(caches) {
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.winograd_tile == 0 || attrs.output_block == 0) {
    throw Error("conv2d-winograd-cpu needs Winograd weights and a channel-blocked output");
  }
  tile_ = attrs.winograd_tile;
  const std::vector<int64_t> out = conv2d_nchw_output(workload).shape;
  batch_ = out[0];
  blocks_ = workload.inputs[1].shape[0];
  tiles_h_ = (out[2] + tile_ - 1) / tile_;
  tiles_w_ = (out[3] + tile_ - 1) / tile_;
  knobs_ = {
      {"oc_blocks", values_up_to({1, 2, 3, 4}, blocks_), "16-channel weight blocks per register block"},
      {"px", values_up_to({1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14}, tiles_w_), "tiles per register block"},
      {"rows", values_up_to({1, 2, 4, 7, 14}, tiles_h_), "tile rows per task"},
      {"parallel", {0, 1}, "0: tasks of tile rows x batch; 1: also channel tiles (each recomputes its input transform)"},
      {"product_at", {0, 1},
       "where the products are stored for the output transform: 0: per tile row; 1: per register block of tiles "
       "(alpha^2 x px x oc_blocks vectors, which stay in L1)"},
  };
}

// The direct space's register block (2 weight blocks where AVX-512 has room, columns up
// to 3/4 of the registers) with tiles for columns, one tile row per task. 40 points each
// on ResNet's 64-channel 56x56 (F(4x4)) and 256-channel 14x14 (F(2x2)) convs (`nee-tune
// --op conv2d --trials 40 --cache cold --threads 2`) left it first after the re-measured
// rounds: 277 and 369 us. In a model the 14x14 one ran faster in tasks of the whole plane
// (below).
ScheduleConfig Conv2dWinogradCpuSpace::default_config() const {
  ScheduleConfig c;
  const bool wide = isa_.wide();
  const int64_t oc_blocks = wide && blocks_ % 2 == 0 ? 2 : 1;
  c.knobs["oc_blocks"] = oc_blocks;
  c.knobs["px"] = fitting_tile(knobs_[1].values, tiles_w_, isa_.default_block_columns(oc_blocks));
  c.knobs["rows"] = 1;
  c.knobs["parallel"] = tiles_h_ * batch_ >= 4 ? 0 : 1;
  c.knobs["product_at"] = 0;
  // A task of one tile row streams every transformed weight. Where they pass 2 MB (L2)
  // while one channel tile's weights and the whole plane's transformed input fit in 1.4
  // MB, a task takes the whole plane for one channel tile instead, reading its weights
  // once (and transforming the input once per channel tile). ResNet's 256-channel 3x3
  // conv on 14x14, F(2x2) (4.2 MB of weights; 0.5 + 0.8 MB a task), ran 653-670 us a tile
  // row a task and 448-477 so (`nee-run --profile`, forced points in a model, alternating);
  // EfficientNetV2-S's 64->256 F(4x4) convs on 28x28 (2.4 MB; 0.3 + 0.5 MB) 1.59-1.73 ms
  // and 1.39-1.44 (their sum in the model). At 1.5 MB a task the whole plane ran level:
  // 128 channels on 28x28, F(4x4) (2.4 MB; 0.6 + 0.9 MB) 331-363 against 338-373, and
  // 1.54-1.59 ms against 1.57-1.64 for ResNet-50's three; past it, it lost: 512 on 14x14
  // (16.8 MB; 1.0 + 1.6 MB) 2237-2320 against 2292-2320, 256 on 28x28, F(4x4) (9.4 MB;
  // 1.2 + 1.8 MB) 1381-1487 against 1605-1719. The task bounds are that machine's (2 MB of
  // L2), scaled to this core's L2 (CpuCaches); the 2 MB of weights past which a task
  // reads its weights once is not: on AMD Zen 4 (1 MB of L2, a fast 32 MB L3) the halved
  // task bounds gained 6-12% on ResNet's 256-channel conv and 9% on EfficientNetV2-S's
  // 64->256 ones, and GoogLeNet's 1.8 MB convs, past a halved 1 MB too, lost 10%
  // (docs/DESIGN-NOTES.md, "Conv byte bounds on a core with smaller caches").
  const std::vector<int64_t>& weights = workload_.inputs[1].shape;  // [blocks, alpha^2, C, 16]
  const int64_t block_bytes = weights[1] * weights[2] * kConvWeightBlock * 4;
  const int64_t plane_input_bytes = weights[1] * tiles_h_ * tiles_w_ * weights[2] * 4;
  const bool weights_over_2mb = blocks_ * block_bytes > 2 * 1024 * 1024;
  // Elsewhere such weights are read once per task of half the tile rows (two tasks for
  // the two threads; 4 and 3 of 7), where its transformed input stays within 1 MB, else of
  // fewer rows. Forced points as above: 128 channels on 28x28, F(4x4), 359-361 us in tasks
  // of one tile row, 259-270 in two tasks; 512 on 14x14, F(2x2) 2447-2477 and 1745-1834;
  // 256 on 28x28, F(4x4) 1902-1910 and 1241-1378 (1.0 MB of transformed input a task).
  const int64_t task_bound = caches_.l2(1434 * 1024);
  if (weights_over_2mb && oc_blocks * block_bytes + plane_input_bytes <= task_bound && blocks_ / oc_blocks >= 4) {
    c.knobs["rows"] = knobs_[2].values.back();
    c.knobs["parallel"] = 1;
  } else if (weights_over_2mb) {
    const int64_t row_input_bytes = weights[1] * tiles_w_ * weights[2] * 4;
    for (int64_t rows : knobs_[2].values) {
      if (rows <= (tiles_h_ + 1) / 2 && rows * row_input_bytes <= caches_.l2(1024 * 1024)) c.knobs["rows"] = rows;
    }
    c.knobs["parallel"] = 0;
  }
  return c;
}

std::string Conv2dWinogradCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (blocks_ % c.at("oc_blocks") != 0) return "channel tiles must divide the weight blocks";
  return isa_.channel_block_misfit(c.at("oc_blocks"), c.at("px"));
}

ScheduledKernel Conv2dWinogradCpuSpace::apply(const ScheduleConfig& c) const {
  Conv2dOptions options;
  options.accumulator = ConvAccumulator::winograd;
  Conv2dPipeline p = define_conv2d(workload_, options);
  constrain_dense_output(p.out, workload_.output.shape);
  const int m = static_cast<int>(tile_);
  const int oc_blocks = static_cast<int>(c.at("oc_blocks"));
  const int px = static_cast<int>(c.at("px"));

  // Splitting x and y by m at multiples of m lets Halide fold x % m and x / m to the
  // unrolled part and the tile, so each output reads its own sums of the products.
  Var xt("xt"), xm("xm"), yt("yt"), ym("ym"), yto("yto"), yti("yti"), obo("obo"), obi("obi"), task("task");
  Var xto("xto"), xti("xti");
  const bool per_block = c.at("product_at") == 1;
  p.out.split(p.x, xt, xm, m, TailStrategy::GuardWithIf)
      .split(xt, xto, xti, per_block ? px : 1, TailStrategy::GuardWithIf)
      .split(p.y, yt, ym, m, TailStrategy::GuardWithIf)
      .split(yt, yto, yti, static_cast<int>(c.at("rows")), TailStrategy::GuardWithIf)
      .split(p.ob, obo, obi, oc_blocks);
  if (c.at("parallel") == 0) {
    p.out.reorder(p.oi, xm, ym, obi, xti, xto, yti, obo, yto, p.n).fuse(yto, p.n, task);
  } else {
    Var both("both");
    p.out.reorder(p.oi, xm, ym, obi, xti, xto, yti, obo, yto, p.n).fuse(obo, yto, both).fuse(both, p.n, task);
  }
  p.out.parallel(task).vectorize(p.oi).unroll(xm).unroll(ym);

  const Var ci("ci"), co("co");
  p.wino_input.compute_at(p.out, task)
      .split(p.c, co, ci, static_cast<int>(kConvWeightBlock),
             p.channels % kConvWeightBlock == 0 ? TailStrategy::RoundUp : TailStrategy::GuardWithIf)
      .reorder(ci, p.xi, p.nu, co, p.tx, p.ty, p.n)
      .vectorize(ci)
      .unroll(p.xi)
      .unroll(p.nu);

  // The row's tiles round up to whole register blocks; the extra tiles read zeros past
  // the input and are never stored to the output.
  const Var txo("txo"), txi("txi");
  p.wino_product.compute_at(p.out, per_block ? xto : yti)
      .split(p.tx, txo, txi, px, TailStrategy::RoundUp)
      .reorder(p.oi, txi, p.ob, p.nu, p.xi, txo, p.ty, p.n)
      .vectorize(p.oi)
      .unroll(txi)
      .unroll(p.ob);
  p.wino_sum.compute_at(p.wino_product, p.nu).vectorize(p.oi).unroll(p.tx).unroll(p.ob);
  p.wino_sum.update().reorder(p.oi, p.tx, p.ob, p.rc).vectorize(p.oi).unroll(p.tx).unroll(p.ob);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
