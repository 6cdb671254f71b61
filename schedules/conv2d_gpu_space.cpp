#include "schedules/conv2d_gpu_space.h"

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "schedules/gpu_block.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, for out(x, y, o, n):
//   blocks   x tiles of threads_x * px_per_thread, y tiles of threads_y, and output
//            channel tiles of threads_o * oc_per_thread fused with n
//   threads  (xt, yt, ot); thread (xt, yt, ot) owns px_per_thread adjacent pixels of a
//            row by oc_per_thread adjacent channels, unrolled, in registers
// Direct (tile_c = 0): each thread sums over (kx, ky, ci) from global memory.
// Staged: the block's accumulators live in shared memory; for each slice of tile_c input
// channels the block's threads load the input window and the weights the tile reads
// into shared memory, then each thread sums its patch over (kx, ky, slice) in registers
// (a reduction split by rfactor, as in the MatMul space) and adds it to the accumulators.
Conv2dGpuSpace::Conv2dGpuSpace(const Workload& workload) : workload_(workload) {
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.input_block != 0 || attrs.output_block != 0) {
    throw Error("conv2d-gpu schedules NCHW activations only, not channel-blocked ones");
  }
  // Only CPU graphs read frames in place (GraphOptions::convs_read_frames).
  if (attrs.frame_taps != 0) throw Error("conv2d-gpu schedules gathered frames only, not frames read in place");
  const Conv2dPipeline shape = define_conv2d(workload);
  out_w_ = shape.out_w;
  out_h_ = shape.out_h;
  out_c_ = shape.out_channels;
  batch_ = shape.batch;
  kernel_w_ = shape.kernel_w;
  kernel_h_ = shape.kernel_h;
  groups_ = shape.group;
  group_channels_ = shape.channels / shape.group;
  group_out_ = shape.out_channels / shape.group;
  stride_y_ = attrs.strides[0];
  stride_x_ = attrs.strides[1];
  dilation_y_ = attrs.dilations[0];
  dilation_x_ = attrs.dilations[1];
  knobs_ = {
      {"threads_x", values_up_to({1, 4, 8, 16, 32}, out_w_), "threads of a block along x"},
      {"threads_y", values_up_to({1, 2, 4, 8, 16}, out_h_), "threads of a block along y"},
      {"oc_per_thread", values_up_to({1, 2, 4, 8}, out_c_), "output channels per thread, in registers"},
      {"unroll_kx", {0, 1}, "unroll the kx loop"},
      {"threads_o", values_up_to({1, 2, 4, 8, 16}, out_c_), "threads of a block along output channels", 1},
      {"px_per_thread", values_up_to({1, 2, 4}, out_w_), "adjacent pixels of a row per thread, in registers", 1},
      {"tile_c", staged_slices(group_channels_),
       "0: threads read the input and weights from global memory; else the block stages them in shared memory, "
       "tile_c input channels at a time",
       0},
  };
}

// Slices of 1 to 32 input channels, and a group's whole channels where they are fewer
// than 32 and none of those (the RGB stem's 3). On an H200, ResNet-50's 1x1 convs over
// 1024 and 2048 channels ran 4 to 7 times cuDNN's time (cuDNN timed in eager calls, whose
// dispatch floor flatters NEE) in slices of 8: each slice costs
// two barriers and a pass over the block's accumulators in shared memory, for 8 steps
// of arithmetic (docs/DESIGN-NOTES.md, "GPU figures, measured on an H200").
std::vector<int64_t> Conv2dGpuSpace::staged_slices(int64_t group_channels) {
  std::vector<int64_t> slices = values_up_to({0, 1, 4, 8, 16, 32}, group_channels);
  if (group_channels < 32 && std::find(slices.begin(), slices.end(), group_channels) == slices.end()) {
    slices.push_back(group_channels);
  }
  return slices;
}

int64_t Conv2dGpuSpace::blocks(const ScheduleConfig& c) const {
  const auto tiles = [](int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; };
  return tiles(out_w_, c.at("threads_x") * c.at("px_per_thread")) * tiles(out_h_, c.at("threads_y")) *
         tiles(out_c_, c.at("threads_o") * c.at("oc_per_thread")) * batch_;
}

int64_t Conv2dGpuSpace::shared_bytes(const ScheduleConfig& c) const {
  const int64_t block_x = c.at("threads_x") * c.at("px_per_thread");
  const int64_t block_y = c.at("threads_y");
  const int64_t block_o = c.at("threads_o") * c.at("oc_per_thread");
  const int64_t tile_c = c.at("tile_c");
  // Groups an output-channel tile can touch, wherever it starts. Halide stages one box of
  // input channels: from the slice in the first group to the slice in the last, whole
  // groups between (for 32 groups of 4 channels, a tile of 64 output channels and slices
  // of 1 channel, 61 channels, not 16).
  const int64_t groups_spanned = std::min(groups_, (block_o + group_out_ - 2) / group_out_ + 1);
  const int64_t channels = (groups_spanned - 1) * group_channels_ + tile_c;
  const int64_t window_x = (block_x - 1) * stride_x_ + (kernel_w_ - 1) * dilation_x_ + 1;
  const int64_t window_y = (block_y - 1) * stride_y_ + (kernel_h_ - 1) * dilation_y_ + 1;
  const int64_t accumulators = block_x * block_y * block_o;
  const int64_t input = window_x * window_y * channels;
  const int64_t weights = kernel_w_ * kernel_h_ * tile_c * block_o;
  return 4 * (accumulators + input + weights);
}

ScheduleConfig Conv2dGpuSpace::default_config() const {
  const int64_t unroll_kx = kernel_w_ <= 3 ? 1 : 0;
  // Staged, each thread 4 (or 2) channels by up to 4 pixels of a row. Tiles from the
  // widest: 32 x 4 pixels by 16 channels on wide planes (ResNet-50's 56x56: 8 KiB of
  // accumulators, 6.5 KiB of input window and 4.5 KiB of 3x3 weights per 8 channels),
  // 8 x 4 by 32, 4 x 4 by 64, then the small tiles of 64 threads, 8 x 2 pixels by 16
  // and 4 x 2 by 16 channels. The first tile whose grid has kGpuBlocksToFill blocks is
  // taken, else the one of most blocks (ResNet-50's 14x14 and 7x7 convs ran grids of 64
  // blocks and fewer with the 8 x 4 and 4 x 4 tiles).
  // Slices as deep as the group's channels and shared memory allow, up to 32 (fewer
  // barriers and accumulator passes per input channel), down to 1 (depthwise).
  struct Tile {
    int64_t threads_x, px, threads_y, threads_o, oc;
  };
  std::optional<ScheduleConfig> most_blocks;
  for (const Tile& t : {Tile{8, 4, 4, 4, 4}, Tile{4, 2, 4, 8, 4}, Tile{4, 1, 4, 16, 4}, Tile{4, 2, 2, 8, 2},
                        Tile{4, 1, 2, 8, 2}}) {
    const std::vector<int64_t> slices = staged_slices(group_channels_);  // ascending
    for (auto slice = slices.rbegin(); slice != slices.rend() && *slice > 0; ++slice) {
      ScheduleConfig staged;
      staged.knobs = {{"threads_x", t.threads_x}, {"px_per_thread", t.px}, {"threads_y", t.threads_y},
                      {"threads_o", t.threads_o}, {"oc_per_thread", t.oc}, {"tile_c", *slice},
                      {"unroll_kx", unroll_kx}};
      if (!check(staged).empty()) continue;
      if (blocks(staged) >= kGpuBlocksToFill) return staged;
      if (!most_blocks || blocks(staged) > blocks(*most_blocks)) most_blocks = staged;
      break;
    }
  }
  if (most_blocks) return *most_blocks;
  ScheduleConfig c;
  c.knobs["threads_x"] = largest_value_up_to(knobs_, "threads_x", 16);
  c.knobs["threads_y"] = largest_value_up_to(knobs_, "threads_y", 8);
  c.knobs["oc_per_thread"] = largest_value_up_to(knobs_, "oc_per_thread", 4);
  c.knobs["unroll_kx"] = unroll_kx;
  c.knobs["threads_o"] = 1;
  c.knobs["px_per_thread"] = 1;
  c.knobs["tile_c"] = 0;
  return c;
}

std::string Conv2dGpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t threads = c.at("threads_x") * c.at("threads_y") * c.at("threads_o");
  if (threads > kGpuMaxThreadsPerBlock) return "more than 1024 threads per block";
  if (c.at("unroll_kx") && kernel_w_ > 7) return "kx unroll over a wide kernel";
  if (c.at("threads_x") * c.at("px_per_thread") > out_w_) return "a block's columns exceed the output's width";
  if (c.at("threads_o") * c.at("oc_per_thread") > out_c_) return "a block's channels exceed the output's";
  const int64_t tile_c = c.at("tile_c");
  if (tile_c == 0) return "";
  if (group_channels_ % tile_c) return "tile_c does not divide the input channels of a group";
  if (shared_bytes(c) > kGpuSharedBytesPerBlock) return "the staged tiles exceed 48 KiB of shared memory";
  return "";
}

ScheduledKernel Conv2dGpuSpace::apply(const ScheduleConfig& c) const {
  const int tile_c = static_cast<int>(c.at("tile_c"));
  // A staged grouped conv reads its input channels clamped: the window of a block's
  // channels is exact, but Halide bounds its start and extent apart, so over all blocks
  // the required input reached past the last channel (channel 11 of 8 for 12 output
  // channels in 2 groups, tiles of 4) and the kernel refused its input.
  Conv2dOptions options;
  options.clamp_reads = tile_c > 0 && groups_ > 1 && group_out_ > 1;
  Conv2dPipeline p = define_conv2d(workload_, options);
  constrain_dense_output(p.out, workload_.output.shape);
  const int tx = static_cast<int>(c.at("threads_x"));
  const int ty = static_cast<int>(c.at("threads_y"));
  const int to = static_cast<int>(c.at("threads_o"));
  const int px = static_cast<int>(c.at("px_per_thread"));
  const int oc = static_cast<int>(c.at("oc_per_thread"));
  const bool unroll_kx = c.at("unroll_kx") != 0;

  Var xb("xb"), xi("xi"), xt("xt"), xr("xr"), yb("yb"), yt("yt"), ob("ob"), oi("oi"), ot("ot"), orr("or");
  const auto tile = [&](auto& stage) {
    stage.split(p.x, xb, xi, tx * px)
        .split(xi, xt, xr, px)
        .split(p.y, yb, yt, ty)
        .split(p.o, ob, oi, to * oc)
        .split(oi, ot, orr, oc);
  };
  tile(p.out);
  p.out.reorder(xr, orr, xt, yt, ot, xb, yb, ob, p.n).unroll(xr).unroll(orr);
  Var blocks("ob_n");
  p.out.fuse(ob, p.n, blocks).gpu_blocks(xb, yb, blocks).gpu_threads(xt, yt, ot);

  const auto sum_in_registers = [&](Stage update, const RVar& kx, const RVar& ky, const RVar& ci) {
    update.reorder(p.x, p.o, kx, ky, ci).unroll(p.x).unroll(p.o);
    if (unroll_kx) update.unroll(kx);
  };

  if (tile_c == 0) {
    p.acc.compute_at(p.out, xt).unroll(p.x).unroll(p.o);
    sum_in_registers(p.acc.update(), p.r.x, p.r.y, p.r.z);
    return ScheduledKernel{Pipeline(p.out), p.arguments()};
  }

  p.acc.compute_at(p.out, xb);
  tile(p.acc);
  p.acc.reorder(xr, orr, xt, yt, ot, xb, yb, ob, p.n).unroll(xr).unroll(orr).gpu_threads(xt, yt, ot);
  RVar co("co"), ci("ci");
  p.acc.update().split(p.r.z, co, ci, tile_c);
  Var slice("slice");
  Func partial = p.acc.update().rfactor(co, slice);
  Stage sum = p.acc.update();
  tile(sum);
  sum.reorder(xr, orr, xt, yt, ot, co, xb, yb, ob, p.n).unroll(xr).unroll(orr).gpu_threads(xt, yt, ot);
  partial.compute_at(p.acc, xt).unroll(p.x).unroll(p.o);
  sum_in_registers(partial.update(), p.r.x, p.r.y, ci);

  // The block's threads load each slice together.
  load_into_shared(p.padded, LoopLevel(p.acc, co), tx, ty, to);
  load_into_shared(p.weight, LoopLevel(p.acc, co), tx, ty, to);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
