#pragma once
#include <cstddef>
#include <cstdint>

namespace nee {

// Frames gathered as NeeFrameGather gathers them (runtime/passes/passes.h): output plane
// p is channel (or channel block) (g * taps + k) * units / groups + u of output frame
// n * frames + f, which is input unit g * units / groups + u of clip n's frame
// f * stride + k * dilation - pad, or zeros outside the clip.
struct FrameGatherGeometry {
  int64_t taps = 1, stride = 1, dilation = 1, pad = 0, groups = 1;
  int64_t clips = 1;            // N
  int64_t time = 1;             // input frames of a clip
  int64_t frames = 1;           // output frames of a clip
  int64_t units = 1;            // input channels, or channel blocks
  bool channels_major = false;  // input [N, C, T, H, W] rather than frames [N * T, C, H, W]
  size_t plane_bytes = 0;       // H x W elements (x 16 where blocked) of the dtype
};

// Writes every output plane, from as many threads as the size pays for.
void gather_frames(const FrameGatherGeometry& g, const void* src, void* dst);

}  // namespace nee
