#pragma once
#include <cstdint>
#include <vector>

namespace nee {

// Channel-blocked conv2d weights. ONNX stores W as [O, C, KH, KW]; a kernel that
// vectorizes over output channels wants the 16 channels of one vector next to each
// other, so NEE may store W as [ceil(O/16), C, KH, KW, 16]: element (o, c, ky, kx) at
// [o / 16, c, ky, kx, o % 16], zero for the channels past O that round the last block
// up. 16 floats fill one AVX-512 register or two AVX2 registers, so one layout serves
// both ISAs. The runtime packs constant weights once when it prepares a model.
constexpr int64_t kConvWeightBlock = 16;

// Whether a conv of `group` groups blocks its weights as a group-1 conv does: group 1, or
// every group's input and output channels whole blocks of 16 (ShuffleNet's grouped 1x1
// convs, ResNeXt-50's 3x3 convs from its third stage), so each 16-channel output vector
// reads the input channels of one group.
bool groups_fill_weight_blocks(int64_t in_channels, int64_t out_channels, int64_t group);

// [O, C, KH, KW] -> [ceil(O/block), C, KH, KW, block]; throws nee::Error unless rank 4.
std::vector<int64_t> blocked_weight_shape(const std::vector<int64_t>& oihw, int64_t block);
// The blocked shape and the output channel count -> [O, C, KH, KW]; throws nee::Error
// unless the blocked shape is rank 5 with `block` innermost and O fits its blocks.
std::vector<int64_t> unblocked_weight_shape(const std::vector<int64_t>& blocked, int64_t out_channels,
                                            int64_t block);

// Copies OIHW weights of shape `oihw` into the blocked layout (out holds the blocked
// shape's elements, the padding channels set to zero), and back.
void pack_blocked_weights(const float* oihw_data, const std::vector<int64_t>& oihw, int64_t block, float* out);
void unpack_blocked_weights(const float* blocked_data, const std::vector<int64_t>& oihw, int64_t block, float* out);

// An integer conv's weights (Conv2dAttrs::a_bits): signed bytes [ceil(O/16), ceil(C/4), KH,
// KW, 16, 4], element (o, c, ky, kx) at [o / 16, c / 4, ky, kx, o % 16, c % 4] and zero past
// O and C, so that one 32-bit lane holds four input channels of one output channel, which
// VNNI's vpdpbusd sums into it; and per output channel its multiplier and the sum of its
// weights, [ceil(O/16), 2, 16] f32 (zero past O). C is that of one group (group 1 only).
std::vector<int64_t> integer_conv_weight_shape(const std::vector<int64_t>& oihw);
std::vector<int64_t> integer_conv_scales_shape(int64_t out_channels);
// Whether an integer conv of these OIHW weights sums at most 65536 products an output (C
// rounded up to lanes of 4, times KH * KW): 255 * 128 * 65536 stays below 2^31, so the sums
// stay in i32, and 128 * 65536 below 2^24, so the weight sums are f32 integers.
bool integer_conv_sums_fit(const std::vector<int64_t>& oihw);
// Packs OIHW signed bytes and O multipliers into both layouts; and the bytes back.
void pack_integer_conv_weights(const int8_t* oihw_data, const std::vector<int64_t>& oihw, const float* multipliers,
                               int8_t* out, float* scales);
void unpack_integer_conv_weights(const int8_t* packed, const std::vector<int64_t>& oihw, int8_t* out);

}  // namespace nee
