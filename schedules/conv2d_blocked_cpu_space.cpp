#include "schedules/conv2d_blocked_cpu_space.h"

#include <algorithm>

#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "kernels/conv2d_algorithm.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

namespace {

// Row tiles of the whole plane too, up to 28 rows: a chunked tile shifts its last tile
// inwards rather than guarding it, so a plane of 5, 9 or 17 rows in tiles of 4, 7 or 14
// computed 8, 14 or 28 rows.
std::vector<int64_t> with_whole_plane(std::vector<int64_t> values, int64_t rows) {
  if (rows <= 28 && std::find(values.begin(), values.end(), rows) == values.end()) {
    values.insert(std::upper_bound(values.begin(), values.end(), rows), rows);
  }
  return values;
}

// Along one dim of a window: the share of (output, tap) pairs that read inside the
// input, and the outputs at which some tap starts or stops reading inside.
struct TapSpan {
  double inside = 1.0;
  std::vector<int64_t> boundaries;
};

TapSpan tap_span(int64_t outputs, int64_t inputs, int64_t taps, int64_t stride, int64_t dilation, int64_t pad) {
  TapSpan span;
  int64_t inside = 0;
  for (int64_t o = 0; o < outputs; ++o) {
    bool changes = false;
    for (int64_t k = 0; k < taps; ++k) {
      const auto reads_inside = [&](int64_t out) {
        const int64_t i = out * stride + k * dilation - pad;
        return i >= 0 && i < inputs;
      };
      inside += reads_inside(o);
      changes = changes || (o > 0 && reads_inside(o) != reads_inside(o - 1));
    }
    if (changes) span.boundaries.push_back(o);
  }
  span.inside = static_cast<double>(inside) / static_cast<double>(outputs * taps);
  return span;
}

// The share of two threads' time that a parallel loop of `tiles` equal tasks keeps busy
// (the defaults were measured on 2 cores; an even count splits evenly on any even count
// of threads). Past 12 tasks the idle share is small. Below 4 a thread that starts late
// has no other task to even out with: DenseNet-121's 1x1 convs onto 128 channels on 7x7
// ran 47-82 us in 2 tiles of 4 weight blocks, 42-79 in 4 of 2 (`nee-run --profile`), so
// such counts score 0.85; a 384->64 1x1 conv on 14x14 (MobileNetV2's) ran 36 us in 2
// tiles of 4 blocks by 5 columns and 39-40 in 4 of 2 by 7: the wider block outweighed that.
double thread_balance(int64_t tiles) {
  if (tiles >= 12) return 1.0;
  const double busy = static_cast<double>(tiles) / static_cast<double>((tiles + 1) / 2 * 2);
  return tiles < 4 ? busy * 0.85 : busy;
}

// An integer conv's sums (Conv2dAttrs::a_bits) in the register block, as the f32 ones but
// for the channels: r.z steps four channels at a time and r.w is the four, vectorized with
// the block's 16 channels into one dot product a vector where the target has VNNI
// (vpdpbusd), else unrolled as four FMAs. Chunks split r.z at input blocks of 16 channels.
// X is quantized once, before the sums, its rows over the threads; without VNNI the weights
// are converted to floats once per tile (`tile`, the loop of one row and channel tile).
void schedule_integer_sums(Conv2dPipeline& p, const ScheduleConfig& c, Stage& update, const CpuVectorIsa& isa,
                           const Var& tile) {
  const int ci_chunk = static_cast<int>(c.at("ci_chunk"));
  const int px = static_cast<int>(c.at("px"));
  RVar channels = p.r.z, cbo("cbo"), cbi("cbi");
  Var xa("xa"), xb("xb");
  const Var block_x = ci_chunk == 0 ? p.x : xb;
  std::vector<VarOrRVar> outer_loops;
  if (ci_chunk > 0) {
    update.split(p.x, xa, xb, px, TailStrategy::RoundUp).split(p.r.z, cbo, cbi, 4 * ci_chunk);
    channels = cbi;
    outer_loops = {xa, p.y, cbo};
  }
  std::vector<VarOrRVar> order;
  if (isa.byte_dot_products) order.push_back(p.r.w);
  order.insert(order.end(), {p.oi, block_x, p.ob});
  if (!isa.byte_dot_products) order.push_back(p.r.w);
  if (c.at("red_order") == 0) {
    order.insert(order.end(), {p.r.x, p.r.y, channels});
  } else {
    order.insert(order.end(), {channels, p.r.x, p.r.y});
  }
  order.insert(order.end(), outer_loops.begin(), outer_loops.end());
  update.reorder(order);
  if (c.at("red_order") == 0 && c.at("unroll_kx")) update.unroll(p.r.x);
  if (isa.byte_dot_products) {
    update.atomic().vectorize(p.r.w).vectorize(p.oi).unroll(block_x).unroll(p.ob);
  } else {
    update.unroll(p.r.w).vectorize(p.oi).unroll(block_x).unroll(p.ob);
    p.weight.compute_at(p.out, tile).vectorize(p.weight.args()[0]);
  }
  const std::vector<Var> q = p.quantized.args();  // (c, x, y, n)
  p.quantized.compute_root().parallel(q[2]);
  if (p.input_block != 0) {
    p.quantized.vectorize(q[0], static_cast<int>(kConvWeightBlock));
  } else {
    p.quantized.vectorize(q[1], 8, TailStrategy::GuardWithIf);
  }
}

}  // namespace


// The loop nest (innermost first), for out(x, y, o, n) from acc_blocked(oi, x, y, ob, n):
//   oi  16 channels of a weight block, vectorized (one AVX-512 or two AVX2 registers)
//   px  output columns of the register block, unrolled
//   ob  oc_blocks weight blocks of the register block, unrolled
//   the reduction over (kx, ky, ci), ci outermost or innermost (red_order)
// per register block; then column blocks xo, rows yi of a row tile, and the channel-tile
// and row-tile loops (order by tile_order, parallel by `parallel`), then n. Each
// reduction step loads oc_blocks weight vectors and px input scalars (broadcast) for
// px * oc_blocks vector FMAs. The epilogue reads the block back transposed into NCHW.
Conv2dBlockedCpuSpace::Conv2dBlockedCpuSpace(const Workload& workload, CpuVectorIsa isa)
    : workload_(workload), isa_(isa) {
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.weight_block != kConvWeightBlock) throw Error("conv2d-blocked-cpu needs channel-blocked weights");
  const auto& ws = workload.inputs[1].shape;
  const std::vector<int64_t> out_shape = conv2d_nchw_output(workload).shape;
  out_c_ = out_shape[1];
  out_h_ = out_shape[2];
  out_w_ = out_shape[3];
  blocks_ = ws[0];
  kernel_w_ = ws[3];
  unpadded_ = attrs.pads == std::array<int64_t, 4>{0, 0, 0, 0};
  blocked_input_ = attrs.input_block != 0;
  integer_ = attrs.a_bits != 0;
  // Input-channel blocks of the reduction, where it splits at block boundaries. Chunking
  // it keeps a chunk's weights in L1 while they serve every pixel of a row tile, instead
  // of streaming all of a register block's weights from L2 for each block of columns:
  // 80 trials (`nee-tune --op conv2d --shape 1x2048x7x7,512x1x1`, 2 threads) put chunked
  // points in all eight first places, the best at 370 us against the default's 568 us
  // (oneDNN: 352 us in nee-bench's resnet50-conv suite).
  // A group's channels (all of them for group 1); a depthwise conv reduces over none.
  input_blocks_ = blocked_input_ && !conv2d_is_depthwise(workload)
                      ? conv2d_nchw_input(workload).shape[1] / attrs.group / attrs.input_block
                      : 0;
  knobs_ = {
      {"oc_blocks", values_up_to({1, 2, 3, 4, 5}, blocks_), "16-channel weight blocks per register block"},
      {"px", values_up_to({1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 28}, out_w_),
       "output columns per register block"},
      {"rows", with_whole_plane(values_up_to({1, 2, 4, 7, 8, 14, 16, 28}, out_h_), out_h_),
       "output rows of a row tile"},
      {"red_order", {0, 1}, "reduction order, innermost first: 0: kx, ky, ci; 1: ci, kx, ky"},
      {"unroll_kx", {0, 1}, "unroll the kx loop (red_order 0)"},
      {"pad_at", integer_ ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1},
       "zero-padded input: 0: inlined (Halide splits off the borders); 1: computed per row tile"},
      {"tile_order", {0, 1}, "0: channel tiles inside row tiles; 1: row tiles inside channel tiles"},
      {"parallel", {0, 1}, "0: outer tile loop x batch; 1: both tile loops x batch"},
      {"ci_chunk", input_blocks_ > 1 ? values_up_to({0, 1, 2, 4, 8, 16}, input_blocks_ / 2) : std::vector<int64_t>{0},
       "input-channel blocks per reduction chunk (blocked input): 0: the whole reduction per register block; "
       "else a row tile's accumulator is revisited once per chunk, which then sweeps the tile's pixels",
       0},
  };
}

ScheduleConfig Conv2dBlockedCpuSpace::default_config() const {
  ScheduleConfig c;
  // Measured on ResNet's 64x56x56 3x3 conv (AVX-512, 40 random points): the fastest
  // blocks were 2 weight blocks by 8-10 columns (16-20 accumulators); 14 columns (28)
  // ran at half their speed, and row tiles inside channel tiles beat the other order.
  // So accumulators take at most 3/4 of the registers, well below the 28 that ran slowly:
  // 2 blocks x 12 on AVX-512's 32 (12 itself was not among the points measured), 1 block
  // (2 registers) x 6 on AVX2's 16, fewer where a smaller count divides the width.
  // A 1x1 conv reads one input pixel per channel step, so wider channel blocks pay: 40
  // random points on ResNet's 256->64 1x1 conv put 4 blocks x 6 columns first (555 us,
  // the default's 2 x 8 at 823 us).
  const bool wide = isa_.wide();
  const bool one_by_one = kernel_w_ == 1 && workload_.inputs[1].shape[2] == 1;
  const Conv2dAttrs attrs = conv2d_attrs(workload_);
  const bool strided = attrs.strides[0] > 1 || attrs.strides[1] > 1;
  // Chunked reductions by default, where a scan of ResNet-18's and ResNet-50's convs
  // (AVX-512, 2 threads, cold caches, 10-20 grid points each besides the default and the
  // tuned point; `nee-measure --cache cold --repeats 9`) found them fastest: every conv
  // onto a plane of 14x14 or less, and every strided 3x3 conv. Against the unchunked
  // default they took the 1024->256 1x1 conv on 14x14 from 484 to 371 us, the
  // 512-channel stride-2 3x3 conv onto 7x7 from 1588 to 1029 us, and the 128-channel one
  // onto 28x28 from 1560 to 837 us. On larger planes stride-1 convs gained at most 7%
  // from chunks, or lost with them.
  // MobileNetV2's narrow 1x1 convs lost with chunks (up to 2.1x slower) where a channel
  // tile's weights fit in L1 anyway, or where too few tiles were left to share between
  // the threads (1-3), so chunks need more than 48 KB of weights per tile and 4 tiles.
  // 3x3 convs onto a 7-wide plane are the exception to 4 weight blocks: with stride 1,
  // 4 blocks by 4 columns (8 computed for 7) ran 1169-1203 us, 2 blocks by 7 932-984 us;
  // ResNet-50's stride-2 512-channel one from 14x14 (`nee-run --profile`, forced points in
  // a model, three alternating runs) 1032-1053 us and 806-828.
  // An odd count of blocks divisible by 3 chunks 3 at a time: SqueezeNet's 512->1000 1x1
  // classifier on 13x13 (63 blocks) took 1238 us unchunked and 948 us chunked (cold,
  // `nee-measure` on the default bundle's kernel; 4 minutes of nee-tune found 844 us).
  const bool window_onto_7_wide = !one_by_one && out_w_ <= 7;
  // Whole planes of up to 18 rows, else the fewest rows computed in tiles of 7-14: the
  // transposed convs of a DCGAN generator as phase convs onto 5x5, 9x9 and 17x17 planes
  // (`nee-tune --op conv2d --shape 1x512x4x4,1024x2x2,p1` and 1x256x8x8,512x2x2,p1 and
  // 1x128x16x16,256x2x2,p1, one point each) ran 298, 244 and 186 us in whole-plane
  // tiles, 337-458, 269-333 and 207-241 in tiles of 1, 2 or 4 rows; a stride-2 3x3 conv
  // onto 28x28 (1x128x56x56,128x3x3,s2,p1) 783 us in tiles of 14, 995 in one of 28.
  const int64_t chunk_rows = fitting_tile(knobs_[2].values, out_h_, out_h_ <= 18 ? 18 : 14);
  const int64_t batch = conv2d_nchw_output(workload_).shape[0];
  auto tiles = [&](int64_t blocks, int64_t rows) { return blocks_ / blocks * ((out_h_ + rows - 1) / rows) * batch; };
  // An unchunked 1x1 conv takes whole planes where they leave 4 tiles or more that the
  // threads split evenly.
  auto one_by_one_rows = [&](int64_t blocks) {
    const int64_t whole = tiles(blocks, chunk_rows);
    return whole >= 4 && thread_balance(whole) == 1.0 ? chunk_rows : fitting_tile(knobs_[2].values, out_h_, 8);
  };
  // A 1x1 conv's register block (on wide units): the weight blocks and columns whose
  // block does the most FMAs per load (blocks x columns over blocks + columns, which
  // stops paying at 2), over columns that cover the width with the least waste, in tiles
  // that the threads split evenly; ties go to 4, then 3 blocks (the measured ones), and to
  // fewer columns. MNASNet's 1x1 convs, tuned for 20 minutes (2260 trials), put 3 blocks
  // by 7 columns first on 7- and 14-wide planes wherever 3 divided the blocks: 192->1152
  // on 7x7 80.5 us against 96.3 for the old default's 4 by 4, 80->480 on 14x14 42.0
  // against 52.8 for 2 by 7, 96->576 62.7 against 73.3 for 4 by 5; 1152->192 on 7x7 in 4
  // tiles of 3 blocks 75.7 against 112.2 in 6 of 2 blocks unchunked (4 blocks left 3
  // tiles). Forced points in a model (`nee-run --profile`, three alternating runs, us):
  // 1152->320 on 7x7 (20 blocks) 166-171 in 10 tiles of 2 by 7, 154-164 in 4 of 5 by 4,
  // 185-189 in 5 of 4 by 4; 480->80 on 14x14 (5 blocks) 68-70 by 1 block of 14 columns,
  // 53-56 by 5 blocks of 5 (25 accumulators), 55-59 of 4; 384->64 on 14x14 36 in 2 tiles
  // of 4 by 5, 39-40 in 4 of 2 by 7; 80->192 on 56x56 275-291 by 3 blocks of 7 or 8 and
  // 283-289 by 4 of 4. Registers past 25 accumulators ran slowly (28 at half speed).
  int64_t one_by_one_blocks = 0, one_by_one_columns = 0;
  if (wide && one_by_one) {
    double best = 0.0;
    for (int64_t b : {4, 3, 5, 2, 1}) {
      if (blocks_ % b != 0) continue;
      for (int64_t px : knobs_[1].values) {
        if (b * px > 25 || !isa_.channel_block_misfit(b, px).empty()) continue;
        const double loads = std::min(2.0, static_cast<double>(b * px) / static_cast<double>(b + px));
        const double used = static_cast<double>(out_w_) / static_cast<double>((out_w_ + px - 1) / px * px);
        const double score = loads * used * thread_balance(tiles(b, one_by_one_rows(b)));
        if (score > best) {
          best = score;
          one_by_one_blocks = b;
          one_by_one_columns = px;
        }
      }
    }
  }
  const int64_t chunk_blocks = one_by_one_blocks != 0                     ? one_by_one_blocks
                               : blocks_ % 4 == 0 && !window_onto_7_wide  ? 4
                               : blocks_ % 2 == 0                         ? 2
                               : blocks_ % 3 == 0                         ? 3
                                                                          : 1;
  const int64_t window = workload_.inputs[1].shape[2] * kernel_w_;
  const int64_t tile_weight_bytes = chunk_blocks * kConvWeightBlock * input_blocks_ * kConvWeightBlock * window * 4;
  // The largest chunk whose weights take at most 32 KB of the 48 KB L1 (8 input blocks
  // of a 1x1 conv with 4 weight blocks, 1 of a 3x3 conv): the scan's best chunks. The
  // bounds in bytes here are the measured machine's (48 KB of L1d) and stay so on cores
  // with less: on AMD Zen 4 (32 KB) this bound and the chunking one below, scaled by 2/3,
  // lost 0-2% and 5-22% (docs/DESIGN-NOTES.md, "Conv byte bounds on a core with smaller
  // caches"); the rest were not measured there.
  int64_t chunk = 0;
  const int64_t chunk_block_bytes = chunk_blocks * kConvWeightBlock * kConvWeightBlock * window * 4;
  for (int64_t v : knobs_[8].values) {
    const bool fits = chunk == 0 || v * chunk_block_bytes <= 32 * 1024;
    if (v > 0 && input_blocks_ % v == 0 && fits) chunk = std::max(chunk, v);
  }
  // Chunks of one input block revisit the accumulators after every 16 channels, which
  // only paid where the tile's weights are far beyond L1: RegNetY-1.6GF's 336->336 1x1
  // conv on 14x14 (21 input blocks, none of 2, 4 or 8 dividing them; 64 KB of weights a
  // tile) ran 232 us in chunks of one and 168 us unchunked (`nee-tune M --time 5m`,
  // confirmed times), its 336->912 one 543 and 424 us; its 912->896 one (228 KB) ran
  // 367 us either way.
  // Planes of up to 18x18 for wider windows: the 17x17 phase conv above ran 233-241 us
  // unchunked, 186 chunked; a 1x1 conv there (1x512x17x17,256x1x1) 191 and 198-199.
  const int64_t chunked_plane = one_by_one ? 14 * 14 : 18 * 18;
  // Merged groups (group_width) skip inputs per weight block only where one block is a
  // loop of its own: RegNetX-1.6GF's grouped 3x3 convs took 4.2 ms a run by 1 block, 5.8
  // by 3 (`nee-run --profile`, default bundles alike but for oc_blocks).
  const bool skips_inputs = attrs.group_width != 0;
  // Windows wider than 1x1 whose tiles hold over 1 MB of weights chunk on any plane:
  // DeepLabV3's 2048->256 3x3 atrous convs on 28x28 (4.7 MB a tile of 4 blocks) took 30.8
  // and 30.8 ms unchunked, 9.9 and 10.0 chunked at rate 12, and 37.7, 38.0 -> 14.5, 15.9 at
  // rate 6; its stage's 512-channel rate-4 ones (1.2 MB) 9.9, 8.8 -> 7.5, 7.7
  // (`nee-tune --op conv2d --shape 1x2048x28x28,256x3x3,p12,d12 --trials 1`, the default
  // of the build before and after, alternating); FCN's undilated 2048->512 head, direct
  // (kWinogradWeightBound), 67.5 -> 34.3 ms, and 3x3 convs onto 28x28 from 512 and 1024
  // channels 8.9 -> 8.5 and 19.9 -> 17.3 (`--no-winograd`, one point each). 1x1 convs gained
  // nothing so (2048->256, 1024->512 and 512->2048 on 28x28, alternating twice).
  const bool huge_window = !one_by_one && tile_weight_bytes > 1024 * 1024;
  // Integer 1x1 convs, whose weights take a quarter of the bytes, lost with chunks: ResNet-50's
  // QDQ convs (`nee-tune M --time 4m`, Zen 4) 1024->2048 on 14x14 at stride 2 333 us unchunked
  // against 418 in chunks of 8 input blocks, 512->2048 on 7x7 165 against 218, 2048->512 179
  // against 217, 256->1024 on 14x14 165 against 194.
  const bool chunked = wide && !(integer_ && one_by_one) && !skips_inputs && input_blocks_ > 1 &&
                       (out_h_ * out_w_ <= chunked_plane || (strided && !one_by_one) || huge_window) &&
                       tile_weight_bytes > 48 * 1024 && tiles(chunk_blocks, chunk_rows) >= 4 &&
                       (chunk > 1 || tile_weight_bytes > 2 * 48 * 1024);
  int64_t oc_blocks = one_by_one_blocks != 0 ? one_by_one_blocks : wide && blocks_ % 2 == 0 ? 2 : 1;
  // An odd count of weight blocks (1000 channels: 63) left one block by 12 columns, an
  // input broadcast per FMA: SqueezeNet's 512->1000 1x1 classifier on 13x13 (`nee-tune
  // --op conv2d --shape 1x512x13x13,1000x1x1 --trials 30`) ran 1800 us at that default,
  // where the trials found 3 blocks by 4 columns at 1055 us (1 by 8: 1084 us).
  if (wide && oc_blocks == 1 && blocks_ % 3 == 0) oc_blocks = 3;
  if (chunked) oc_blocks = chunk_blocks;
  if (skips_inputs) oc_blocks = 1;
  c.knobs["oc_blocks"] = oc_blocks;
  // A chunked tile rounds its columns up to whole register blocks, so a window wider
  // than 1x1 takes the blocks of 3 to 6 columns that cover the plane with the fewest:
  // 4 columns (8 for a 7-wide plane) came first for 7-wide planes, and blocks that divide
  // the width won over wider ones that do not: 3 columns for the 9x9 phase conv above (269
  // us against 319 with 5), 5 for a 256-channel 3x3 conv on 10x10 (1x256x10x10,256x3x3,p1:
  // 301 us against 376 with 6), 4 for the 28x28 stride-2 one (608 against 720 with 6).
  // A chunked 1x1 conv takes the register block of the 1x1 score above, as an unchunked
  // one does: ResNet-50's 14x14 1x1 convs in a model, in tiles of 7 rows (`nee-run
  // --profile`, three alternating runs, us), 1024->256 at 4 blocks by 5 columns 314-322,
  // by 4 331-339, by 3 (the fewest columns computed, the old default) 367-398; the
  // stride-2 512->1024 onto 14x14 706-737, 759-800 and, by 3 in 14-row tiles, 800-844.
  if (chunked && oc_blocks == 4 && !one_by_one) {
    std::vector<int64_t> columns;
    for (int64_t v : knobs_[1].values) {
      if (v >= 3) columns.push_back(v);
    }
    // Planes narrower than 3 columns take all of them.
    c.knobs["px"] = columns.empty() ? knobs_[1].values.back() : fitting_tile(columns, out_w_, 6);
  } else if (oc_blocks == one_by_one_blocks) {
    c.knobs["px"] = one_by_one_columns;
  } else {
    c.knobs["px"] = fitting_tile(knobs_[1].values, out_w_, isa_.default_block_columns(oc_blocks));
  }
  // A chunked 1x1 tile whose accumulator (rows by columns by weight blocks of 16 floats)
  // and chunk of weights pass 80 KB together takes half the rows, where they divide the
  // tile. ResNet-50's 1024->256 1x1 conv on 14x14, 4 blocks by 4 columns (`nee-run
  // --profile`, forced points, three alternating runs, us), ran 351-367 in 7-row tiles
  // (28 KB of accumulator and 32 KB of weights) and 409-416 in 14-row ones (56 + 32 KB);
  // in a second run 327-355 in 7-row tiles, 338-356 in 14-row ones with chunks of 4 input
  // blocks (56 + 16 KB), 379-400 in 7-row ones with chunks of 16 (28 + 64 KB). Its
  // stride-2 512->1024 onto 14x14 ran 705-738 against 786-794. RegNetY-3.2GF's 576-channel
  // 1x1 convs on 14x14 (3 blocks by 7 columns, 38 + 12 KB) lost 7% in 7-row tiles, and a
  // chunked 3x3 conv gained nothing so (stride 2, 128 channels onto 28x28: 657-691 in
  // 7-row tiles, 658-677 in 14-row ones).
  int64_t chunked_rows = chunk_rows;
  if (chunked && one_by_one) {
    const int64_t columns = (out_w_ + c.at("px") - 1) / c.at("px") * c.at("px");
    const int64_t accumulator_bytes = chunk_rows * columns * oc_blocks * kConvWeightBlock * 4;
    const std::vector<int64_t>& rows = knobs_[2].values;
    const bool halves = chunk_rows % 2 == 0 && std::find(rows.begin(), rows.end(), chunk_rows / 2) != rows.end();
    if (accumulator_bytes + chunk * chunk_block_bytes > 80 * 1024 && halves) chunked_rows = chunk_rows / 2;
  }
  // Whole 14-row tiles (or the whole plane) won for chunked tiles, which reuse a chunk's
  // weights over the tile, and for unchunked 1x1 convs (425 -> 373 us for 256->64 on 56x56)
  // that keep 4 tiles or more (MobileNetV2's 192->64 on 14x14 with one: 86 against 44 us)
  // and split evenly: MNASNet's 480->80 on 14x14, 5 weight blocks of one by 14 columns,
  // ran 79.0 us in 5 tiles of 14 rows and 77.3 in 10 of 8, its 240->80 41.4 and 40.4.
  c.knobs["rows"] = chunked              ? chunked_rows
                    : one_by_one && wide ? one_by_one_rows(oc_blocks)
                                         : fitting_tile(knobs_[2].values, out_h_, 8);
  c.knobs["red_order"] = 0;
  c.knobs["pad_at"] = unpadded_ || blocked_input_ || integer_ ? 0 : 1;
  c.knobs["tile_order"] = 1;
  // ResNet-18 tuned for 6 minutes in the blocked layout (17 conv workloads, seeded from
  // this default when it still parallelized channel tiles alone where there were 8 or
  // more): 16 of the 17 best points parallelize both tile loops, and 9 of the 14 with
  // windows wider than one column unroll kx (LLVM then reuses each broadcast input
  // across the taps that read it).
  c.knobs["unroll_kx"] = kernel_w_ > 1 && kernel_w_ <= 7 ? 1 : 0;
  c.knobs["parallel"] = 1;
  c.knobs["ci_chunk"] = chunked ? chunk : 0;
  // Where most taps read padding, the tap loops go outside the channels (red_order 1),
  // so the taps left out are whole loop iterations, in register blocks whose columns all
  // read inside or all outside for each tap: the rate-24 conv above (18% of its products
  // inside) took 4.6 ms so against 11.6 with kx unrolled innermost (9.5 unchunked); at
  // rate 12 (51% inside) 10.2 against 10.7, and at rate 2 (86%) 24.4 against 8.4, its
  // register blocks straddling the map's edges; at rate 18 (31%) 20.4 ms unchunked, 8.8
  // so in blocks of 2 columns (edges at columns 10 and 18).
  // Convs dilated along H skip the taps that read padding (conv2d_algorithm.cpp).
  if (chunked && attrs.dilations[0] > 1) {
    const TapSpan rows = tap_span(out_h_, conv2d_nchw_input(workload_).shape[2], workload_.inputs[1].shape[2],
                                  attrs.strides[0], attrs.dilations[0], attrs.pads[0]);
    const TapSpan columns = tap_span(out_w_, conv2d_nchw_input(workload_).shape[3], kernel_w_, attrs.strides[1],
                                     attrs.dilations[1], attrs.pads[1]);
    std::vector<int64_t> aligned;
    for (int64_t v : knobs_[1].values) {
      bool divides = v >= 2 && isa_.channel_block_misfit(oc_blocks, v).empty();
      for (int64_t b : columns.boundaries) divides = divides && b % v == 0;
      if (divides) aligned.push_back(v);
    }
    if (rows.inside * columns.inside < 0.5 && !aligned.empty() && aligned.front() <= 6) {
      c.knobs["red_order"] = 1;
      c.knobs["unroll_kx"] = 0;
      c.knobs["px"] = fitting_tile(aligned, out_w_, 6);
    }
  }
  return c;
}

std::string Conv2dBlockedCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (blocks_ % c.at("oc_blocks") != 0) return "channel tiles must divide the weight blocks";
  const std::string misfit = isa_.channel_block_misfit(c.at("oc_blocks"), c.at("px"));
  if (!misfit.empty()) return misfit;
  if (c.at("unroll_kx") && (c.at("red_order") != 0 || kernel_w_ > 7)) return "kx unrolls only innermost and narrow";
  if (c.at("pad_at") == 1 && unpadded_) return "the conv has no padding to compute";
  // A per-tile copy vectorizes over columns, which lie 16 apart in a blocked input.
  if (c.at("pad_at") == 1 && blocked_input_) return "a channel-blocked input is padded inline";
  if (c.at("pad_at") == 1 && integer_) return "an integer conv's quantized input is padded inline";
  if (c.at("ci_chunk") > 0 && input_blocks_ % c.at("ci_chunk") != 0) return "chunks must divide the input blocks";
  return "";
}

ScheduledKernel Conv2dBlockedCpuSpace::apply(const ScheduleConfig& c) const {
  Conv2dOptions options;
  options.accumulator = ConvAccumulator::channel_blocked;
  options.byte_dot_products = isa_.byte_dot_products;
  Conv2dPipeline p = define_conv2d(workload_, options);
  constrain_dense_output(p.out, workload_.output.shape);
  const int oc_blocks = static_cast<int>(c.at("oc_blocks"));
  const int px = static_cast<int>(c.at("px"));

  // The channel-tile loop `oo` and its unrolled channels `oc`: NCHW output splits o into
  // tiles of 16 * oc_blocks channels, vectorizes columns and unrolls channels (reading
  // the block back transposed); blocked output splits the weight blocks ob, vectorizes
  // the 16 channels of a block and unrolls columns and blocks, as the accumulator does.
  // A guarded last row tile computes only the rows left, where a shifted one recomputes
  // those it overlaps (13 rows in tiles of 8 computed 16); but a chunked accumulator spans
  // its whole tile, which a guard would let reach past the input, so that one shifts.
  const TailStrategy row_tail = c.at("ci_chunk") == 0 ? TailStrategy::GuardWithIf : TailStrategy::ShiftInwards;
  Var xo("xo"), xi("xi"), oo("oo"), oc("oc"), yt("yt"), yi("yi");
  p.out.split(p.x, xo, xi, px).split(p.y, yt, yi, static_cast<int>(c.at("rows")), row_tail);
  const Var inner_tile = c.at("tile_order") == 0 ? oo : yt;
  const Var outer_tile = c.at("tile_order") == 0 ? yt : oo;
  if (p.output_block == 0) {
    const int oc_tile = static_cast<int>(kConvWeightBlock) * oc_blocks;
    // Channel tiles past O compute padding channels of the last weight block; the guard
    // keeps them out of the output.
    const TailStrategy channel_tail = out_c_ % oc_tile == 0 ? TailStrategy::RoundUp : TailStrategy::GuardWithIf;
    p.out.split(p.o, oo, oc, oc_tile, channel_tail);
    p.out.reorder(xi, oc, xo, yi, inner_tile, outer_tile, p.n).vectorize(xi).unroll(oc);
  } else {
    p.out.split(p.ob, oo, oc, oc_blocks);
    p.out.reorder(p.oi, xi, oc, xo, yi, inner_tile, outer_tile, p.n).vectorize(p.oi).unroll(xi).unroll(oc);
  }

  Var pad_level = yt;
  Var tiles("tiles");
  if (c.at("parallel") == 0) {
    p.out.fuse(outer_tile, p.n, tiles).parallel(tiles);
    if (outer_tile.same_as(yt)) pad_level = tiles;
  } else {
    Var both("both");
    p.out.fuse(inner_tile, outer_tile, both).fuse(both, p.n, tiles).parallel(tiles);
    pad_level = tiles;
  }

  const int ci_chunk = static_cast<int>(c.at("ci_chunk"));
  if (ci_chunk == 0) {
    p.acc_blocked.compute_at(p.out, xo).vectorize(p.oi).unroll(p.x).unroll(p.ob);
  } else {
    // The accumulator of a whole row tile (one iteration of the parallel loop, or of the
    // inner tile loop inside it).
    p.acc_blocked.compute_at(p.out, c.at("parallel") == 1 ? tiles : inner_tile).vectorize(p.oi);
  }
  Stage update = p.acc_blocked.update();
  if (integer_) {
    schedule_integer_sums(p, c, update, isa_, c.at("parallel") == 1 ? tiles : inner_tile);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }
  // Blocked input: the channel loop splits at block boundaries, so each input read is
  // [ci % 16, x, y, ci / 16] with both parts loop variables. (A depthwise conv has no
  // channel loop: it reads the 16 channels of its own block as one vector.)
  const bool split_channels = input_blocks_ > 0;
  RVar ci = p.r.z, cb = p.r.z;
  if (split_channels) {
    ci = RVar("ci");
    cb = RVar("cb");
    update.split(p.r.z, cb, ci, static_cast<int>(p.input_block));
  }
  // Chunked: the register block's columns xb, then the chunk's reduction, then the
  // tile's column blocks xa and rows, then the chunks. The tile's columns are rounded up
  // to whole blocks (the accumulator is internal, so the extra columns cost only work).
  Var xa("xa"), xb("xb");
  const Var block_x = ci_chunk == 0 ? p.x : xb;
  RVar cbo("cbo"), cbi("cbi");
  std::vector<VarOrRVar> outer_loops;
  if (ci_chunk > 0) {
    update.split(p.x, xa, xb, px, TailStrategy::RoundUp).split(cb, cbo, cbi, ci_chunk);
    cb = cbi;
    outer_loops = {xa, p.y, cbo};
  }
  std::vector<VarOrRVar> order = {p.oi, block_x, p.ob};
  if (c.at("red_order") == 0) {
    order.insert(order.end(), {p.r.x, p.r.y});
    if (split_channels) {
      order.insert(order.end(), {ci, cb});
    } else {
      order.push_back(p.r.z);
    }
  } else if (split_channels) {
    order.insert(order.end(), {ci, p.r.x, p.r.y, cb});
  } else {
    order.insert(order.end(), {p.r.z, p.r.x, p.r.y});
  }
  order.insert(order.end(), outer_loops.begin(), outer_loops.end());
  update.reorder(order);
  if (c.at("red_order") == 0 && c.at("unroll_kx")) update.unroll(p.r.x);
  update.vectorize(p.oi).unroll(block_x).unroll(p.ob);

  if (c.at("pad_at") == 1) {
    // Rounding the copy's width up to whole vectors keeps its x loop free of the
    // shifted-in tail, so Halide can split off the borders; with the tail, every vector
    // of the copy was a scalarized gather (2.8 ms against 857 us for MobileNetV2's
    // 96-channel stride-2 depthwise layer).
    p.padded.compute_at(p.out, pad_level).vectorize(p.padded.args()[0], isa_.lanes, TailStrategy::RoundUp);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
