#include <algorithm>
#include <cmath>
#include <vector>

#include "core/activation_layout.h"
#include "core/error.h"
#include "runtime/reference/float_lanes.h"
#include "runtime/reference/parallel_ranges.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

static_assert(kActivationBlock == kFloatLanes, "a channel block is one FloatLanes");

// Pixels summed in f32 lanes before their sums join the f64 totals: 64 terms a lane keep
// the f32 part's rounding near 4e-6 of a partial sum.
constexpr int64_t kChunkPixels = 64;

// A NeeGroupNorm's tensor: `images` of `channels` planes of `plane` elements each, laid
// out [N, C, spatial...] or blocked [N, C/16, H, W, 16].
struct GroupNormShape {
  int64_t images, channels, plane, groups;
  bool blocked;
  double epsilon;

  int64_t group_channels() const { return channels / groups; }
  // The units the passes split between threads: a channel's plane, or a block's.
  int64_t units() const { return images * (blocked ? channels / kFloatLanes : channels); }
  // Where channel c of image n starts, and the step between its elements.
  int64_t channel_offset(int64_t n, int64_t c) const {
    return blocked ? ((n * (channels / kFloatLanes) + c / kFloatLanes) * plane) * kFloatLanes + c % kFloatLanes
                   : (n * channels + c) * plane;
  }
};

// Sums of (x - shift) and its square over one contiguous plane: f32 lanes over chunks,
// f64 across them.
NEE_VECTOR_CLONES void shifted_plane_sums(const float* x, int64_t plane, float shift, double& s1, double& s2) {
  double d1 = 0, d2 = 0;
  const int64_t chunk = kChunkPixels * kFloatLanes;
  for (int64_t begin = 0; begin < plane; begin += chunk) {
    const int64_t end = std::min(plane, begin + chunk);
    FloatLanes a = {}, b = {};
    int64_t i = begin;
    for (; i + kFloatLanes <= end; i += kFloatLanes) {
      const FloatLanes v = *reinterpret_cast<const FloatLanes*>(x + i) - shift;
      a += v;
      b += v * v;
    }
    for (; i < end; ++i) {
      const double v = static_cast<double>(x[i]) - shift;
      d1 += v;
      d2 += v * v;
    }
    for (int64_t l = 0; l < kFloatLanes; ++l) {
      d1 += a[l];
      d2 += b[l];
    }
  }
  s1 = d1;
  s2 = d2;
}

// The same for a block's 16 channels, lane by lane, over a block plane [plane, 16].
NEE_VECTOR_CLONES void shifted_block_sums(const float* x, int64_t plane, const float* shifts, double* s1,
                                          double* s2) {
  const FloatLanes shift = *reinterpret_cast<const FloatLanes*>(shifts);
  for (int64_t l = 0; l < kFloatLanes; ++l) s1[l] = s2[l] = 0;
  for (int64_t begin = 0; begin < plane; begin += kChunkPixels) {
    const int64_t end = std::min(plane, begin + kChunkPixels);
    FloatLanes a = {}, b = {};
    for (int64_t p = begin; p < end; ++p) {
      const FloatLanes v = *reinterpret_cast<const FloatLanes*>(x + p * kFloatLanes) - shift;
      a += v;
      b += v * v;
    }
    for (int64_t l = 0; l < kFloatLanes; ++l) {
      s1[l] += a[l];
      s2[l] += b[l];
    }
  }
}

// y = x * scale + shift over one contiguous plane.
NEE_VECTOR_CLONES void affine_plane(const float* x, float* y, int64_t plane, float scale, float shift) {
  int64_t i = 0;
  for (; i + kFloatLanes <= plane; i += kFloatLanes) {
    *reinterpret_cast<FloatLanes*>(y + i) = *reinterpret_cast<const FloatLanes*>(x + i) * scale + shift;
  }
  for (; i < plane; ++i) y[i] = x[i] * scale + shift;
}

// The same lane by lane over a block plane [plane, 16].
NEE_VECTOR_CLONES void affine_block(const float* x, float* y, int64_t plane, const float* scales, const float* shifts) {
  const FloatLanes scale = *reinterpret_cast<const FloatLanes*>(scales);
  const FloatLanes shift = *reinterpret_cast<const FloatLanes*>(shifts);
  for (int64_t p = 0; p < plane * kFloatLanes; p += kFloatLanes) {
    *reinterpret_cast<FloatLanes*>(y + p) = *reinterpret_cast<const FloatLanes*>(x + p) * scale + shift;
  }
}

GroupNormShape shape_of(const Graph& graph, const Node& node) {
  const auto fail = [&](const std::string& why) { return Error(node.op + " '" + node.name + "': " + why); };
  const std::vector<int64_t>& x = graph.type_of(node.inputs.at(0)).shape;
  GroupNormShape s{};
  s.blocked = node.attrs.get_int("input_block", 0) != 0;
  if (s.blocked && (x.size() != 5 || x[4] != kFloatLanes)) throw fail("a blocked input must be [N, C/16, H, W, 16]");
  if (x.size() < 3) throw fail("the input needs a batch, channels and at least one spatial dim");
  s.images = x[0];
  s.channels = s.blocked ? x[1] * kFloatLanes : x[1];
  s.plane = 1;
  for (size_t d = 2; d < x.size() - (s.blocked ? 1 : 0); ++d) s.plane *= x[d];
  s.groups = node.attrs.get_int("groups");
  if (s.groups <= 0 || s.channels % s.groups != 0) throw fail("groups must divide the channels");
  for (size_t i = 1; i < 3; ++i) {
    if (graph.type_of(node.inputs.at(i)).elements() != s.channels) {
      throw fail("scale and bias need one value a channel");
    }
  }
  s.epsilon = node.attrs.get_float("epsilon");
  return s;
}

// Each channel's affine y = x * a + b of a NeeGroupNorm: a = scale[c] / sqrt(var + epsilon),
// b = bias[c] - mean * a, mean and biased var over each image's group of channels, indexed
// image * channels + channel. One read gathers each channel's sums of x - K and (x - K)^2,
// K the first element of its group (so the variance, E[(x-K)^2] - E[x-K]^2, loses little
// to cancellation), channel planes (or block planes) split among a thread per core.
void channel_affine(const GroupNormShape& s, int64_t workers, const float* x, const float* scale, const float* bias,
                    float* a, float* b) {
  const int64_t per_group = s.group_channels();
  // Each channel's shift K, its group's first element.
  std::vector<float> shifts(static_cast<size_t>(s.images * s.channels));
  for (int64_t n = 0; n < s.images; ++n) {
    for (int64_t c = 0; c < s.channels; ++c) {
      shifts[n * s.channels + c] = x[s.channel_offset(n, c - c % per_group)];
    }
  }
  std::vector<double> s1(shifts.size()), s2(shifts.size());
  const int64_t unit_channels = s.blocked ? kFloatLanes : 1;
  run_in_parallel(s.units(), workers, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t c = u * unit_channels;  // image * channels + channel
      const float* plane = x + s.channel_offset(c / s.channels, c % s.channels);
      if (s.blocked) {
        shifted_block_sums(plane, s.plane, &shifts[c], &s1[c], &s2[c]);
      } else {
        shifted_plane_sums(plane, s.plane, shifts[c], s1[c], s2[c]);
      }
    }
  });
  const double count = static_cast<double>(per_group * s.plane);
  for (int64_t first = 0; first < s.images * s.channels; first += per_group) {
    double sum = 0, squares = 0;
    for (int64_t c = first; c < first + per_group; ++c) {
      sum += s1[c];
      squares += s2[c];
    }
    const double offset = sum / count;
    const double inv_std = 1.0 / std::sqrt(std::max(0.0, squares / count - offset * offset) + s.epsilon);
    const double mean = shifts[first] + offset;
    for (int64_t c = first; c < first + per_group; ++c) {
      const double channel_scale = inv_std * scale[c % s.channels];
      a[c] = static_cast<float>(channel_scale);
      b[c] = static_cast<float>(bias[c % s.channels] - mean * channel_scale);
    }
  }
}

int64_t workers_of(const GroupNormShape& s) {
  return workers_for(s.images * s.channels * s.plane * 4, int64_t{1} << 20, s.units());
}

}  // namespace

// NeeGroupNorm (runtime/passes/passes.h: fuse_group_norm): y = x * a + b per channel
// (channel_affine), a second pass over x, split like the first.
ReferenceFn make_reference_nee_group_norm(const Graph& graph, const Node& node) {
  const GroupNormShape s = shape_of(graph, node);
  const int64_t workers = workers_of(s);
  return [s, workers](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    std::vector<float> a(static_cast<size_t>(s.images * s.channels)), b(a.size());
    channel_affine(s, workers, x, in[1]->data_as<float>(), in[2]->data_as<float>(), a.data(), b.data());
    const int64_t unit_channels = s.blocked ? kFloatLanes : 1;
    run_in_parallel(s.units(), workers, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t c = u * unit_channels;
        const int64_t at = s.channel_offset(c / s.channels, c % s.channels);
        if (s.blocked) {
          affine_block(x + at, y + at, s.plane, &a[c], &b[c]);
        } else {
          affine_plane(x + at, y + at, s.plane, a[c], b[c]);
        }
      }
    });
  };
}

// NeeGroupNormAffine (passes.h: group_norm_affine_into_elementwise): the a and b of
// channel_affine as two outputs of one value a channel, [N, C, 1...] or blocked [N, C/16,
// 1, 1, 16], both laid out image * channels + channel.
ReferenceFn make_reference_nee_group_norm_affine(const Graph& graph, const Node& node) {
  const GroupNormShape s = shape_of(graph, node);
  if (node.outputs.size() != 2 || graph.type_of(node.outputs[0]).elements() != s.images * s.channels ||
      graph.type_of(node.outputs[1]).elements() != s.images * s.channels) {
    throw Error("NeeGroupNormAffine '" + node.name + "': needs two outputs of one value a channel of each image");
  }
  const int64_t workers = workers_of(s);
  return [s, workers](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    channel_affine(s, workers, in[0]->data_as<float>(), in[1]->data_as<float>(), in[2]->data_as<float>(),
                   out[0]->data_as<float>(), out[1]->data_as<float>());
  };
}

}  // namespace nee
