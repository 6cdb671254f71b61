#include <algorithm>
#include <cstring>
#include <vector>

#include "core/activation_layout.h"
#include "core/error.h"
#include "runtime/reference/frame_gather.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/parallel_ranges.h"

namespace nee {

// NeeFrameGather (runtime/passes/passes.h): each output plane is one input plane or
// zeros, so the kernel copies whole planes: H x W elements, or H x W x 16 of a channel
// block where the frames are blocked.
ReferenceFn make_reference_nee_frame_gather(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t>& y = graph.type_of(node.outputs[0]).shape;
  const int64_t taps = node.attrs.get_int("kernel"), stride = node.attrs.get_int("stride");
  const int64_t dilation = node.attrs.get_int("dilation"), pad = node.attrs.get_int("pad_begin");
  const int64_t groups = node.attrs.get_int("group"), time_given = node.attrs.get_int("input_frames", 0);
  const int64_t block = node.attrs.get_int("input_block", 0) != 0 ? kActivationBlock : 1;
  const auto fail = [&](const std::string& why) { return Error("NeeFrameGather '" + node.name + "': " + why); };
  if (taps < 1 || stride < 1 || dilation < 1 || pad < 0 || groups < 1) {
    throw fail("kernel, stride, dilation and group must be positive and pad_begin not negative");
  }
  // The input's frames: [N, C, T, H, W] (channels-major), or [N * T, C, H, W] with T
  // given, channel-blocked as [N * T, C/16, H, W, 16] with input_block.
  const bool channels_major = time_given == 0;
  const size_t rank = block == 1 ? (channels_major ? 5 : 4) : 5;
  if (x.shape.size() != rank || (!channels_major && x.shape[0] % time_given != 0) || (block != 1 && channels_major)) {
    throw fail("input shape does not match its layout (input_frames, input_block)");
  }
  const int64_t time = channels_major ? x.shape[2] : time_given;
  const int64_t batch = channels_major ? x.shape[0] : x.shape[0] / time_given;
  const int64_t units = x.shape[1];  // channels, or channel blocks
  const int64_t height = x.shape[channels_major ? 3 : 2], width = x.shape[channels_major ? 4 : 3];
  if (units % groups != 0 || y.size() != x.shape.size() - (channels_major ? 1 : 0) || y[0] % batch != 0 ||
      y[1] != taps * units || y[2] != height || y[3] != width || (block != 1 && y[4] != block)) {
    throw fail("output shape does not match the input's and the attributes");
  }
  FrameGatherGeometry g;
  g.taps = taps;
  g.stride = stride;
  g.dilation = dilation;
  g.pad = pad;
  g.groups = groups;
  g.clips = batch;
  g.time = time;
  g.frames = y[0] / batch;
  g.units = units;
  g.channels_major = channels_major;
  g.plane_bytes = static_cast<size_t>(height * width * block) * dtype_size(x.dtype);
  return [g](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    gather_frames(g, in[0]->data(), out[0]->data());
  };
}

void gather_frames(const FrameGatherGeometry& g, const void* src, void* dst) {
  const int64_t channels = g.taps * g.units, planes = g.clips * g.frames * channels;
  const int64_t group_units = g.units / g.groups;
  const size_t plane = g.plane_bytes;
  // Output planes [from, to): plane p is channel (or block) (group * KT + k) * C/G + c of
  // output frame n * T' + f.
  const auto copy_planes = [&](int64_t from, int64_t to) {
    for (int64_t p = from; p < to; ++p) {
      const int64_t frame = p / channels, channel = p % channels;
      const int64_t tap = channel / group_units % g.taps, group = channel / group_units / g.taps;
      const int64_t n = frame / g.frames, t = frame % g.frames * g.stride + tap * g.dilation - g.pad;
      const int64_t u = group * group_units + channel % group_units;
      uint8_t* out = static_cast<uint8_t*>(dst) + static_cast<size_t>(p) * plane;
      if (t < 0 || t >= g.time) {
        std::memset(out, 0, plane);
        continue;
      }
      const int64_t at = g.channels_major ? (n * g.units + u) * g.time + t : (n * g.time + t) * g.units + u;
      std::memcpy(out, static_cast<const uint8_t*>(src) + static_cast<size_t>(at) * plane, plane);
    }
  };
  // A thread per core for every 4 MiB written: R(2+1)D-18's largest gather (116 MB) took
  // 46 ms on one core of this 2-core machine.
  const int64_t workers = workers_for(static_cast<int64_t>(plane) * planes, int64_t{1} << 22, planes);
  run_in_parallel(planes, workers, copy_planes);
}

}  // namespace nee
