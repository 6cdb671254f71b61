#include "core/winograd_weights.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/conv_weight_layout.h"
#include "core/error.h"

namespace nee {

// The matrices of Lavin and Gray's paper (interpolation points 0, 1, -1 for m = 2 and
// 0, 1, -1, 2, -2 for m = 4, each with the point at infinity).
const WinogradTransforms& winograd_transforms(int64_t m) {
  static const WinogradTransforms f2{
      2,
      4,
      {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
      {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
      {{1, 1, 1, 0}, {0, 1, -1, -1}},
      {{1, 0, 0, 0}, {0, 1, -1, 0}, {0, 0, 0, 1}},
  };
  static const WinogradTransforms f4{
      4,
      6,
      {{4, 0, -5, 0, 1, 0},
       {0, -4, -4, 1, 1, 0},
       {0, 4, -4, -1, 1, 0},
       {0, -2, -1, 2, 1, 0},
       {0, 2, -1, -2, 1, 0},
       {0, 4, 0, -5, 0, 1}},
      {{1.0 / 4, 0, 0},
       {-1.0 / 6, -1.0 / 6, -1.0 / 6},
       {-1.0 / 6, 1.0 / 6, -1.0 / 6},
       {1.0 / 24, 1.0 / 12, 1.0 / 6},
       {1.0 / 24, -1.0 / 12, 1.0 / 6},
       {0, 0, 1}},
      {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}},
      {{4, 0, 0, 0, 0, 0}, {0, -3, 3, 0, 0, 0}, {0, 0, 0, 0, 0, 1}},
  };
  if (m == 2) return f2;
  if (m == 4) return f4;
  throw Error(fmt::format("Winograd tile {} does not exist: NEE has F(2x2,3x3) and F(4x4,3x3)", m));
}

std::vector<int64_t> winograd_weight_shape(const std::vector<int64_t>& oihw, int64_t m) {
  const int64_t alpha = winograd_transforms(m).alpha;
  if (oihw.size() != 4 || oihw[2] != 3 || oihw[3] != 3) {
    throw Error(fmt::format("Winograd weights need a 3x3 window, got [{}]", fmt::join(oihw, ",")));
  }
  return {(oihw[0] + kConvWeightBlock - 1) / kConvWeightBlock, alpha * alpha, oihw[1], kConvWeightBlock};
}

std::vector<int64_t> winograd_oihw_shape(const std::vector<int64_t>& transformed, int64_t out_channels, int64_t m) {
  const int64_t alpha = winograd_transforms(m).alpha;
  if (transformed.size() != 4 || transformed[1] != alpha * alpha || transformed[3] != kConvWeightBlock ||
      out_channels <= 0 || (out_channels + kConvWeightBlock - 1) / kConvWeightBlock != transformed[0]) {
    throw Error(fmt::format("Winograd weights [{}] do not hold {} output channels for tile {}",
                            fmt::join(transformed, ","), out_channels, m));
  }
  return {out_channels, transformed[2], 3, 3};
}

namespace {

// Offset of (o, c, element e) in the transformed layout.
int64_t packed_offset(int64_t o, int64_t c, int64_t e, int64_t channels, int64_t elements) {
  return (((o / kConvWeightBlock) * elements + e) * channels + c) * kConvWeightBlock + o % kConvWeightBlock;
}

}  // namespace

void pack_winograd_weights(const float* oihw_data, const std::vector<int64_t>& oihw, int64_t m, float* out) {
  const WinogradTransforms& t = winograd_transforms(m);
  const std::vector<int64_t> shape = winograd_weight_shape(oihw, m);
  const int64_t channels = oihw[1], elements = shape[1];
  std::fill(out, out + shape[0] * shape[1] * shape[2] * shape[3], 0.0f);
  std::vector<double> gg(static_cast<size_t>(t.alpha * 3));  // G g, alpha x 3
  for (int64_t o = 0; o < oihw[0]; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const float* g = oihw_data + (o * channels + c) * 9;
      for (int i = 0; i < t.alpha; ++i) {
        for (int k = 0; k < 3; ++k) {
          double s = 0;
          for (int j = 0; j < 3; ++j) s += t.g[i][j] * g[j * 3 + k];
          gg[i * 3 + k] = s;
        }
      }
      for (int xi = 0; xi < t.alpha; ++xi) {
        for (int nu = 0; nu < t.alpha; ++nu) {
          double s = 0;
          for (int k = 0; k < 3; ++k) s += gg[xi * 3 + k] * t.g[nu][k];
          out[packed_offset(o, c, xi * t.alpha + nu, channels, elements)] = static_cast<float>(s);
        }
      }
    }
  }
}

void unpack_winograd_weights(const float* packed, const std::vector<int64_t>& oihw, int64_t m, float* out) {
  const WinogradTransforms& t = winograd_transforms(m);
  const int64_t channels = oihw[1], elements = int64_t{t.alpha} * t.alpha;
  std::vector<double> lu(static_cast<size_t>(3 * t.alpha));  // g_inverse U, 3 x alpha
  for (int64_t o = 0; o < oihw[0]; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int i = 0; i < 3; ++i) {
        for (int nu = 0; nu < t.alpha; ++nu) {
          double s = 0;
          for (int xi = 0; xi < t.alpha; ++xi) {
            s += t.g_inverse[i][xi] * packed[packed_offset(o, c, xi * t.alpha + nu, channels, elements)];
          }
          lu[i * t.alpha + nu] = s;
        }
      }
      float* g = out + (o * channels + c) * 9;
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
          double s = 0;
          for (int nu = 0; nu < t.alpha; ++nu) s += lu[i * t.alpha + nu] * t.g_inverse[k][nu];
          g[i * 3 + k] = static_cast<float>(s);
        }
      }
    }
  }
}

}  // namespace nee
