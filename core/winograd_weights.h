#pragma once
#include <cstdint>
#include <vector>

namespace nee {

// Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): an m x m block of a 3x3 convolution's outputs is
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
// for the alpha x alpha input block d (alpha = m + 2) and the 3x3 filter g, (.) the
// elementwise product. Across channels the products become alpha^2 independent matrix
// products, with 9 m^2 / alpha^2 fewer multiplies than the direct sum: 2.25x fewer
// for m = 2, 4x for m = 4. NEE offers m = 2 and m = 4.
struct WinogradTransforms {
  int m = 0, alpha = 0;
  std::vector<std::vector<double>> bt;  // B^T, alpha x alpha: input block -> transformed
  std::vector<std::vector<double>> g;   // G, alpha x 3: filter -> transformed
  std::vector<std::vector<double>> at;  // A^T, m x alpha: products -> output block
  std::vector<std::vector<double>> g_inverse;  // 3 x alpha with g_inverse G = I: recovers a filter
};

// The transforms for tile m (2 or 4); throws nee::Error for any other.
const WinogradTransforms& winograd_transforms(int64_t m);

// Transformed conv weights. For output-channel block ob (16 channels, as
// core/conv_weight_layout.h blocks them) and element e = xi * alpha + nu of the
// transformed filter, the C x 16 panel that one of the alpha^2 matrix products reads is
// contiguous: W is stored as [ceil(O/16), alpha^2, C, 16], element (o, c, xi, nu) at
// [o / 16, xi * alpha + nu, c, o % 16], zero past O. The runtime transforms constant
// weights once when it prepares a model.
//
// [O, C, 3, 3] -> [ceil(O/16), alpha^2, C, 16]; throws nee::Error unless the window is 3x3.
std::vector<int64_t> winograd_weight_shape(const std::vector<int64_t>& oihw, int64_t m);
// The transformed shape and the output channel count -> [O, C, 3, 3]; throws nee::Error
// unless the shape is one winograd_weight_shape gives for tile m.
std::vector<int64_t> winograd_oihw_shape(const std::vector<int64_t>& transformed, int64_t out_channels, int64_t m);

// OIHW weights of shape `oihw` -> G g G^T in the layout above (computed in double), and
// back through g_inverse (exact up to rounding for weights that pack produced).
void pack_winograd_weights(const float* oihw_data, const std::vector<int64_t>& oihw, int64_t m, float* out);
void unpack_winograd_weights(const float* packed, const std::vector<int64_t>& oihw, int64_t m, float* out);

}  // namespace nee
