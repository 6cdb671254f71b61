#include "kernels/conv2d_algorithm.h"

#include <cmath>
#include <limits>

#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "core/family.h"
#include "core/winograd_weights.h"
#include "kernels/activation_exprs.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

namespace {

// sum_k coefs[k] * terms[k] over the nonzero coefficients, a coefficient of +-1 as an
// add or subtract: the Winograd transforms are mostly zeros and ones.
Expr linear_combination(const std::vector<double>& coefs, const std::vector<Expr>& terms) {
  Expr sum;
  for (size_t k = 0; k < coefs.size(); ++k) {
    if (coefs[k] == 0.0) continue;
    const Expr term = coefs[k] == 1.0 || coefs[k] == -1.0 ? terms[k] : static_cast<float>(std::fabs(coefs[k])) * terms[k];
    if (!sum.defined()) {
      sum = coefs[k] < 0 ? -term : term;
    } else {
      sum = coefs[k] < 0 ? sum - term : sum + term;
    }
  }
  return sum;
}

// The Winograd stages of `p` (whose padded input is defined) and the value of output
// element (oi, x, y, ob, n) before the epilogue: A^T M A of its tile, the element of it
// that (y % m, x % m) picks. A schedule that splits x and y by m and unrolls the parts
// turns every mux into one branch. `clamp_reads`: Conv2dOptions'.
Expr define_winograd(Conv2dPipeline& p, const Conv2dAttrs& attrs, bool clamp_reads) {
  const WinogradTransforms& t = winograd_transforms(attrs.winograd_tile);
  const int m = t.m, alpha = t.alpha;
  p.winograd_tile = m;
  const Expr x0 = p.tx * m - static_cast<int>(attrs.pads[1]), y0 = p.ty * m - static_cast<int>(attrs.pads[0]);
  // B^T d B as B^T (d B): (d B)(i, nu) is the same expression for every xi, so LLVM
  // computes it once in a transform whose xi and nu loops are unrolled.
  std::vector<Expr> input_rows;
  for (int a = 0; a < alpha; ++a) {
    std::vector<Expr> row;
    for (int b = 0; b < alpha; ++b) {
      std::vector<Expr> db;
      for (int i = 0; i < alpha; ++i) {
        std::vector<Expr> block_row;
        for (int j = 0; j < alpha; ++j) block_row.push_back(p.padded(x0 + j, y0 + i, p.c, p.n));
        db.push_back(linear_combination(t.bt[b], block_row));
      }
      row.push_back(linear_combination(t.bt[a], db));
    }
    input_rows.push_back(mux(p.nu, row));
  }
  p.wino_input = Func("wino_input");
  p.wino_input(p.c, p.tx, p.ty, p.xi, p.nu, p.n) = mux(p.xi, input_rows);

  p.rc = RDom(0, static_cast<int>(p.channels), "rc");
  const int blocks = static_cast<int>((p.out_channels + kConvWeightBlock - 1) / kConvWeightBlock);
  const Expr weight_oi = clamp_reads ? clamp(p.oi, 0, static_cast<int>(kConvWeightBlock) - 1) : Expr(p.oi);
  const Expr weight_ob = clamp_reads ? clamp(p.ob, 0, blocks - 1) : Expr(p.ob);
  p.wino_sum = Func("wino_sum");
  p.wino_sum(p.oi, p.tx, p.ty, p.xi, p.nu, p.ob, p.n) = 0.0f;
  p.wino_sum(p.oi, p.tx, p.ty, p.xi, p.nu, p.ob, p.n) +=
      p.wino_input(p.rc, p.tx, p.ty, p.xi, p.nu, p.n) * p.weights(weight_oi, p.rc, p.xi * alpha + p.nu, weight_ob);
  p.wino_product = Func("wino_product");
  p.wino_product(p.oi, p.tx, p.ty, p.xi, p.nu, p.ob, p.n) = p.wino_sum(p.oi, p.tx, p.ty, p.xi, p.nu, p.ob, p.n);

  // A^T M A as A^T (M A), the inner sums shared as above.
  std::vector<Expr> output_rows;
  for (int r = 0; r < m; ++r) {
    std::vector<Expr> row;
    for (int s = 0; s < m; ++s) {
      std::vector<Expr> ma;
      for (int a = 0; a < alpha; ++a) {
        std::vector<Expr> products;
        for (int b = 0; b < alpha; ++b) products.push_back(p.wino_product(p.oi, p.x / m, p.y / m, a, b, p.ob, p.n));
        ma.push_back(linear_combination(t.at[s], products));
      }
      row.push_back(linear_combination(t.at[r], ma));
    }
    output_rows.push_back(mux(p.x % m, row));
  }
  return mux(p.y % m, output_rows);
}

// An integer conv's value before its bias (Conv2dAttrs::a_bits): X quantized as
// QuantizeLinear does (a true division, ties to even), the sums over (kx, ky, ci / 4, ci % 4)
// of q by the signed weights, less a_zero times the weight sum, times the multiplier. Taps in
// the padding read a_zero, which the weight sum's correction cancels. `in_x`, `in_y`: the tap's
// input column and row in terms of p.r.
Expr define_integer_sums(Conv2dPipeline& p, const Workload& w, const Expr& in_x, const Expr& in_y,
                         bool byte_dot_products) {
  p.w_scales = ImageParam(Float(32), 3, "w_scales");
  constrain_dense_input(p.w_scales, w.inputs[2].shape);
  const int scale_rank = static_cast<int>(w.inputs[3].shape.size());
  const int zero_rank = static_cast<int>(w.inputs[4].shape.size());
  p.a_scale = ImageParam(Float(32), scale_rank, "a_scale");
  p.a_zero = ImageParam(UInt(8), zero_rank, "a_zero");
  constrain_dense_input(p.a_scale, w.inputs[3].shape);
  constrain_dense_input(p.a_zero, w.inputs[4].shape);
  const Expr scale = max(p.a_scale(std::vector<Expr>(scale_rank, 0)), std::numeric_limits<float>::min());
  const Expr zero = p.a_zero(std::vector<Expr>(zero_rank, 0));
  const Var &x = p.x, &y = p.y, &c = p.c, &n = p.n;
  // C rounds up to whole lanes of four: the channels past it read the last one, whose
  // weights there are zero.
  Expr read;
  if (p.input_block == 0) {
    read = p.input(x, y, min(c, static_cast<int>(p.channels) - 1), n);
  } else {
    const int block = static_cast<int>(p.input_block);
    read = p.input(c % block, x, y, c / block, n);
  }
  const Expr q = clamp(round(read / scale) + cast<float>(zero), 0.0f, 255.0f);
  p.quantized = Func("quantized");
  p.quantized(c, x, y, n) = byte_dot_products ? cast<uint8_t>(q) : q - cast<float>(zero);
  const Expr outside = byte_dot_products ? zero : Expr(0.0f);
  const Func padded_q = BoundaryConditions::constant_exterior(
      p.quantized, outside, {Range(), {0, static_cast<int>(p.in_w)}, {0, static_cast<int>(p.in_h)}, Range()});
  const Expr tap_input = padded_q(p.r.z * 4 + p.r.w, in_x, in_y, n);
  p.acc_blocked = Func("acc_blocked");
  if (byte_dot_products) {
    p.acc_blocked(p.oi, x, y, p.ob, n) = 0;
    p.acc_blocked(p.oi, x, y, p.ob, n) +=
        cast<int32_t>(tap_input) * cast<int32_t>(p.weights(p.r.w, p.oi, p.r.x, p.r.y, p.r.z, p.ob));
  } else {
    // The bytes hold a vector's 16 output channels 4 apart: as floats they are a stage of
    // their own, 16 channels innermost, which the schedule computes once per tile.
    const Var lane("lane"), kx("kx"), ky("ky"), c4("c4");
    p.weight(p.oi, lane, kx, ky, c4, p.ob) = cast<float>(p.weights(lane, p.oi, kx, ky, c4, p.ob));
    p.acc_blocked(p.oi, x, y, p.ob, n) = 0.0f;
    p.acc_blocked(p.oi, x, y, p.ob, n) += tap_input * p.weight(p.oi, p.r.w, p.r.x, p.r.y, p.r.z, p.ob);
  }
  const int block = static_cast<int>(kConvWeightBlock);
  const bool blocked_out = p.output_block != 0;
  const Expr lane = blocked_out ? Expr(p.oi) : p.o % block, weight_block = blocked_out ? Expr(p.ob) : p.o / block;
  const Expr sums = p.acc_blocked(lane, x, y, weight_block, n);
  const Expr multiplier = p.w_scales(lane, 0, weight_block);
  if (!byte_dot_products) return sums * multiplier;
  const Expr weight_sum = cast<int32_t>(p.w_scales(lane, 1, weight_block));
  return cast<float>(sums - cast<int32_t>(zero) * weight_sum) * multiplier;
}

}  // namespace

std::vector<Argument> Conv2dPipeline::arguments() const {
  std::vector<Argument> args = {input, weights};
  if (w_scales.defined()) args.insert(args.end(), {w_scales, a_scale, a_zero});
  if (bias.defined()) args.push_back(bias);
  if (residual.defined()) args.push_back(residual);
  return args;
}

Conv2dPipeline define_conv2d(const Workload& w, const Conv2dOptions& options) {
  if (family_of(w).id != FamilyId::conv2d) throw Error("define_conv2d got a '" + w.op + "' workload");
  const Conv2dAttrs attrs = conv2d_attrs(w);
  const std::vector<int64_t> xs = conv2d_nchw_input(w).shape;
  const std::vector<int64_t> ys = conv2d_nchw_output(w).shape;
  const auto& ws = w.inputs[1].shape;
  const bool clamp_reads = options.clamp_reads;
  Conv2dPipeline p;
  p.weight_block = attrs.weight_block;
  if (options.accumulator == ConvAccumulator::channel_blocked && p.weight_block == 0) {
    throw Error("a channel-blocked conv2d accumulator needs channel-blocked weights");
  }
  p.input_block = attrs.input_block;
  p.output_block = attrs.output_block;
  if (options.accumulator == ConvAccumulator::per_channel && p.output_block != 0) {
    throw Error("a channel-blocked conv2d output needs the channel-blocked accumulator");
  }
  if ((options.accumulator == ConvAccumulator::winograd) != (attrs.winograd_tile != 0)) {
    throw Error("the Winograd conv2d accumulator goes with Winograd weights, and only with them");
  }
  if (options.accumulator == ConvAccumulator::winograd && p.output_block == 0) {
    throw Error("a Winograd conv2d needs a channel-blocked output");
  }
  if (attrs.a_bits != 0 && options.accumulator != ConvAccumulator::channel_blocked) {
    throw Error("an integer conv2d needs the channel-blocked accumulator");
  }
  p.batch = xs[0];
  p.channels = xs[1];
  p.in_h = xs[2];
  p.in_w = xs[3];
  p.out_channels = ys[1];
  p.kernel_h = ws[2];
  p.kernel_w = ws[3];
  p.group = attrs.group;
  p.out_h = ys[2];
  p.out_w = ys[3];

  const auto& physical_xs = w.inputs[0].shape;
  p.input = ImageParam(Float(32), static_cast<int>(physical_xs.size()), "input");
  p.weights = ImageParam(attrs.a_bits != 0 ? Int(8) : Float(32), static_cast<int>(ws.size()), "weights");
  constrain_dense_input(p.input, physical_xs);
  constrain_dense_input(p.weights, ws);
  const Var &x = p.x, &y = p.y, &o = p.o, &n = p.n, &c = p.c;

  // Zero outside the input (x and y only), through Halide's boundary condition: its
  // reads clamp a likely() coordinate, so where a schedule inlines this stage Halide
  // splits loops into borders and a steady state whose loads are plain vector loads. (A
  // hand-written select around clamped reads turned every vectorized load into a
  // gather.)
  const int iw = static_cast<int>(p.in_w), ih = static_cast<int>(p.in_h);
  p.padded = Func("padded");
  Expr in_c_index = clamp_reads ? clamp(c, 0, static_cast<int>(p.channels) - 1) : Expr(c);
  Expr in_n_index = clamp_reads ? clamp(n, 0, static_cast<int>(p.batch) - 1) : Expr(n);
  // Frames read in place: channel c of frame n as gathered is channel c % C of the tap
  // c / C's frame of its clip, zero outside the clip (its read clamped to bound it). A
  // blocked input divides its block index, which the lanes' loop does not change: S3D's
  // first temporal conv ran 22.5 ms divided per channel, 21.5 divided per block (19.3 over
  // gathered frames, `nee-run --profile`).
  Expr in_clip = Halide::Internal::const_true();
  if (attrs.frame_taps != 0) {
    const int channels = static_cast<int>(p.channels / attrs.frame_taps);
    const int frames_in = static_cast<int>(attrs.frames_in), frames_out = static_cast<int>(attrs.frames_out);
    const int unit = p.input_block == 0 ? 1 : static_cast<int>(p.input_block);
    const Expr tap = in_c_index / unit / (channels / unit);
    const Expr frame = in_n_index % frames_out * static_cast<int>(attrs.frame_stride) +
                       tap * static_cast<int>(attrs.frame_dilation) - static_cast<int>(attrs.frame_pad);
    in_clip = frame >= 0 && frame < frames_in;
    in_n_index = in_n_index / frames_out * frames_in + clamp(frame, 0, frames_in - 1);
    in_c_index = in_c_index / unit % (channels / unit) * unit + in_c_index % unit;
  }
  // A conv dilated along H skips the taps that fall outside the input (the predicate on
  // the reduction below, which Halide trims from the tap rows' loops where it can) rather
  // than multiplying zeros; its reads are clamped only to bound them. DeepLabV3's atrous
  // pyramid on a 28x28 map reads the padding in 29% of its tap rows at rate 12 and 57% at
  // rate 24; the boundary condition's split into borders and a steady state found no
  // steady state there. A 2048 -> 256 3x3 conv at rate 12, 67.7 -> 34.5 ms; at rate 24,
  // 38.1 -> 11.1 ms. Convs dilated along W only (1-D convs over rows) keep the boundary
  // condition: HiFi-GAN's took 21.3 -> 26-28 ms with the predicate.
  const bool skip_padding_taps = attrs.dilations[0] > 1 && attrs.winograd_tile == 0 && attrs.a_bits == 0;
  if (skip_padding_taps) {
    const Expr cx = clamp(x, 0, iw - 1), cy = clamp(y, 0, ih - 1);
    if (p.input_block == 0) {
      p.padded(x, y, c, n) = select(in_clip, p.input(cx, cy, in_c_index, in_n_index), 0.0f);
    } else {
      const int block = static_cast<int>(p.input_block);
      p.padded(x, y, c, n) =
          select(in_clip, p.input(in_c_index % block, cx, cy, in_c_index / block, in_n_index), 0.0f);
    }
  } else if (p.input_block == 0) {
    const Func zero_outside =
        BoundaryConditions::constant_exterior(p.input, 0.0f, {{0, iw}, {0, ih}, Range(), Range()});
    p.padded(x, y, c, n) = select(in_clip, zero_outside(x, y, in_c_index, in_n_index), 0.0f);
  } else {
    const int block = static_cast<int>(p.input_block);
    const Func zero_outside =
        BoundaryConditions::constant_exterior(p.input, 0.0f, {Range(), {0, iw}, {0, ih}, Range(), Range()});
    p.padded(x, y, c, n) =
        select(in_clip, zero_outside(in_c_index % block, x, y, in_c_index / block, in_n_index), 0.0f);
  }

  const int group_channels = static_cast<int>(ws[1]);
  const int group_out = static_cast<int>(p.out_channels / p.group);
  if (attrs.a_bits == 0) {
    p.r = RDom(0, static_cast<int>(p.kernel_w), 0, static_cast<int>(p.kernel_h), 0, group_channels, "r");
  } else {
    const int kw = static_cast<int>(p.kernel_w), kh = static_cast<int>(p.kernel_h);
    p.r = RDom({{0, kw}, {0, kh}, {0, group_channels}, {0, 4}}, "r");
  }
  const Expr in_x = x * static_cast<int>(attrs.strides[1]) + p.r.x * static_cast<int>(attrs.dilations[1]) -
                    static_cast<int>(attrs.pads[1]);
  const Expr in_y = y * static_cast<int>(attrs.strides[0]) + p.r.y * static_cast<int>(attrs.dilations[0]) -
                    static_cast<int>(attrs.pads[0]);
  if (skip_padding_taps) p.r.where(in_y >= 0 && in_y < ih && in_x >= 0 && in_x < iw);
  const Expr in_c = p.group == 1 ? Expr(p.r.z) : (o / group_out) * group_channels + p.r.z;
  const Expr weight_o = clamp_reads ? clamp(o, 0, static_cast<int>(p.out_channels) - 1) : Expr(o);
  const Var kx("kx"), ky("ky"), ci("ci");
  // (Transformed Winograd weights hold no taps to read one by one.)
  p.weight = Func("weight");
  if (attrs.winograd_tile == 0 && p.weight_block == 0) {
    p.weight(kx, ky, ci, o) = p.weights(kx, ky, ci, weight_o);
  } else if (attrs.winograd_tile == 0 && attrs.a_bits == 0) {
    const int block = static_cast<int>(p.weight_block);
    p.weight(kx, ky, ci, o) = p.weights(weight_o % block, kx, ky, ci, weight_o / block);
  }

  Expr value;
  if (options.accumulator == ConvAccumulator::per_channel) {
    p.acc = Func("acc");
    p.acc(x, y, o, n) = 0.0f;
    p.acc(x, y, o, n) += p.weight(p.r.x, p.r.y, p.r.z, o) * p.padded(in_x, in_y, in_c, n);
    value = p.acc(x, y, o, n);
  } else if (options.accumulator == ConvAccumulator::winograd) {
    value = define_winograd(p, attrs, clamp_reads);
  } else if (attrs.a_bits != 0) {
    value = define_integer_sums(p, w, in_x, in_y, options.byte_dot_products);
  } else {
    // Group 1 (ci = r.z), depthwise (r.z is 0 and the input channel is the output's), or
    // groups of whole blocks (block ob reads its group's channels): make_conv2d_workload
    // allows blocked weights only there.
    const int block = static_cast<int>(p.weight_block);
    Expr blocked_in_c = p.r.z;
    if (p.is_depthwise()) {
      blocked_in_c = p.ob * block + p.oi;
    } else if (p.group > 1) {
      blocked_in_c = p.ob / (group_out / block) * group_channels + p.r.z;
    }
    // Merged groups (group_width): block ob reads only the inputs of the groups its 16
    // channels belong to, which Halide trims from the channel loops where ob is a loop
    // outside them. RegNetX-1.6GF's groups of 24 merged in pairs read 2/3 of their 48
    // inputs per block; its grouped 3x3 convs took 6.5 -> 4.2 ms a run (`nee-run
    // --profile`, one weight block per register block).
    if (attrs.group_width != 0) {
      const int width = static_cast<int>(attrs.group_width);
      const Expr first = p.ob % (group_out / block) * block;
      p.r.where(p.r.z >= first / width * width && p.r.z < (first + block - 1) / width * width + width);
    }
    p.acc_blocked = Func("acc_blocked");
    p.acc_blocked(p.oi, x, y, p.ob, n) = 0.0f;
    const Expr block_index = clamp_reads ? clamp(p.ob, 0, static_cast<int>(ws[0]) - 1) : Expr(p.ob);
    const Expr in_block = clamp_reads ? clamp(p.oi, 0, block - 1) : Expr(p.oi);
    p.acc_blocked(p.oi, x, y, p.ob, n) +=
        p.weights(in_block, p.r.x, p.r.y, p.r.z, block_index) * p.padded(in_x, in_y, blocked_in_c, n);
    value = p.output_block != 0 ? p.acc_blocked(p.oi, x, y, p.ob, n) : p.acc_blocked(o % block, x, y, o / block, n);
  }
  // The output's channel, in terms of the output Func's own variables.
  const Expr channel = p.output_block != 0 ? p.ob * static_cast<int>(p.output_block) + p.oi : Expr(o);
  size_t next = conv2d_bias_input(attrs);
  if (conv2d_has_bias(w)) {
    p.bias = ImageParam(Float(32), 1, "bias");
    constrain_dense_input(p.bias, w.inputs[next++].shape);
    value = value + p.bias(channel);
  }
  if (conv2d_has_residual(w)) {
    const auto& rs = w.inputs[next++].shape;
    p.residual = ImageParam(Float(32), static_cast<int>(rs.size()), "residual");
    constrain_dense_input(p.residual, rs);
    value = p.output_block != 0 ? value + p.residual(p.oi, x, y, p.ob, n) : value + p.residual(x, y, o, n);
  }
  if (attrs.activation == ConvActivation::relu) value = max(value, 0.0f);
  if (attrs.activation == ConvActivation::clip) {
    value = clamp(value, static_cast<float>(attrs.clip_min), static_cast<float>(attrs.clip_max));
  }
  if (attrs.activation == ConvActivation::silu) value = silu(value);
  if (attrs.activation == ConvActivation::gelu) value = gelu(value);
  if (attrs.activation == ConvActivation::hardsigmoid) value = hard_sigmoid(value);
  if (attrs.activation == ConvActivation::hardswish) value = hard_swish(value);
  if (attrs.requantize_scale != 0) {
    // The pair's f32 steps as the elementwise kernels and the reference compute them: a true
    // division, ties to even, and the zero point's add and subtract only where it is not 0.
    const float scale = attrs.requantize_scale, zero = static_cast<float>(attrs.requantize_zero);
    Expr q = round(value / scale);
    if (zero != 0.0f) q = q + zero;
    q = min(max(q, static_cast<float>(attrs.requantize_low)), static_cast<float>(attrs.requantize_high));
    if (zero != 0.0f) q = q - zero;
    value = q * scale;
  }
  p.out = Func("out");
  if (p.output_block != 0) {
    p.out(p.oi, x, y, p.ob, n) = value;
  } else {
    p.out(x, y, o, n) = value;
  }
  return p;
}

}  // namespace nee
