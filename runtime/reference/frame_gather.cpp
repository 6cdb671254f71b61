#include <cstring>

#include "core/error.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// NeeFrameGather (runtime/passes/passes.h): each output plane is one input plane or
// zeros, so the kernel copies whole H x W planes.
ReferenceFn make_reference_nee_frame_gather(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t>& y = graph.type_of(node.outputs[0]).shape;
  const bool frames_major = node.attrs.get_int("frames_major", 0) != 0;
  const int64_t taps = node.attrs.get_int("kernel"), stride = node.attrs.get_int("stride");
  const int64_t dilation = node.attrs.get_int("dilation"), pad = node.attrs.get_int("pad_begin");
  const int64_t groups = node.attrs.get_int("group");
  const auto fail = [&](const std::string& why) {
    return Error("NeeFrameGather '" + node.name + "': " + why);
  };
  if (x.shape.size() != 5 || y.size() != 4) throw fail("needs a 5-D input and a 4-D output");
  if (taps < 1 || stride < 1 || dilation < 1 || pad < 0 || groups < 1) {
    throw fail("kernel, stride, dilation and group must be positive and pad_begin not negative");
  }
  const int64_t batch = x.shape[0], channels = frames_major ? x.shape[2] : x.shape[1];
  const int64_t time = frames_major ? x.shape[1] : x.shape[2];
  if (channels % groups != 0 || y[0] % batch != 0 || y[1] != taps * channels || y[2] != x.shape[3] ||
      y[3] != x.shape[4]) {
    throw fail("output shape does not match the input's and the attributes");
  }
  const int64_t frames = y[0] / batch, group_channels = channels / groups;
  const size_t plane = static_cast<size_t>(x.shape[3] * x.shape[4]) * dtype_size(x.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t f = 0; f < frames; ++f) {
        for (int64_t g = 0; g < groups; ++g) {
          for (int64_t k = 0; k < taps; ++k) {
            const int64_t t = f * stride + k * dilation - pad;
            for (int64_t c = g * group_channels; c < (g + 1) * group_channels; ++c, dst += plane) {
              if (t < 0 || t >= time) {
                std::memset(dst, 0, plane);
                continue;
              }
              const int64_t at = frames_major ? (n * time + t) * channels + c : (n * channels + c) * time + t;
              std::memcpy(dst, src + static_cast<size_t>(at) * plane, plane);
            }
          }
        }
      }
    }
  };
}

}  // namespace nee
