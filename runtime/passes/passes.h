#pragma once
#include "runtime/graph.h"
#include "runtime/graph_options.h"

namespace nee {

// Graph rewrites run by Session::prepare() and by the tuner before it extracts workloads,
// so that both see the same fused nodes. Each pass lives in its own file.
//
// The internal op "NeeMatMul" computes act(alpha * op(A) x op(B) + beta * C):
// attributes trans_a, trans_b, relu and gelu (ints; at most one of relu and gelu is 1,
// gelu may be absent), alpha, beta (floats); inputs A, B and an optional C that
// broadcasts to the product's shape.
//
// The internal op "NeeConv" computes act(conv(X, W) + B + R): Conv's attributes
// (explicit kernel_shape, strides, dilations, pads, group) plus bias and residual (ints:
// whether B and R are inputs), activation ("none", "relu", "clip", "silu", "gelu",
// "hardsigmoid", "hardswish"), clip_min and clip_max (floats), weight_block (int, absent or 0: W is [O, C/group,
// KH, KW]; 16: W is channel-blocked, core/conv_weight_layout.h), and input_block and
// output_block (ints, absent or 0: X, and Y and R, are NCHW; 16: channel-blocked,
// core/activation_layout.h), and winograd_tile (int, absent or 0: direct sums; 2 or 4:
// W is transformed for Winograd F(m x m, 3x3), core/winograd_weights.h, and weight_block
// is 16). Inputs X, W, then B if bias = 1, then R if residual = 1.
//
// The internal op "NeeLayout" copies its input into another activation layout:
// attribute to ("nchw16c": NCHW in, channel-blocked out; "nchw": back).
//
// The internal op "NeeElementwise" evaluates a fused chain of elementwise operators:
// attribute program (string, the text of core/elementwise_program.h), inputs the
// program's slots x0, x1... in order, each broadcast to the output.
//
// The internal op "NeeLayerNorm" computes ONNX LayerNormalization's Y only:
// (X - mean) / sqrt(var + epsilon) * Scale + B over the dims from `axis` on: attributes
// axis (int, non-negative) and epsilon (float); inputs X, Scale and an optional B, both
// broadcasting to X without growing it. With attribute rms 1 it is an RMSNorm:
// X / sqrt(mean(X^2) + epsilon) * Scale + B.

// Drops Identity nodes, Pads whose pads are all zero, with `same_type_casts`
// (GraphOptions::remove_same_type_casts) Casts and CastLikes to their input's own type, and
// with `whole_slices` (GraphOptions::remove_whole_slices) Slices that keep every element
// in order (remove_identity.cpp).
void remove_identity(Graph& graph, bool same_type_casts, bool whole_slices = false);
// A Pad of zeros around an NCHW tensor's spatial dims read by an AveragePool (PyTorch
// exports avg_pool2d with count_include_pad so; Inception-v3 has nine, 2.1 ms of its 44
// on the reference Pad): the pool reads the tensor itself, its pads grown by the Pad's
// and counted in every window (count_include_pad), which averages the same sums over the
// same divisors. Not where the pool rounds its extent up (ceil_mode), excludes its own
// padding from the divisor, or the padding would fill a whole window. With `into_convs`
// (GraphOptions::fold_pads_into_convs) the same for a Conv of any spatial rank: it reads
// the tensor itself with its pads grown (a WaveNet's causal Pad before each dilated conv,
// Keras's asymmetric 'same' padding). A Pad left unread is dropped.
void fold_zero_pads(Graph& graph, bool into_convs);
// A ReduceMean of an NCHW f32 tensor over H and W (MNASNet's and ConvNeXt's heads, and
// squeeze-and-excite written as x.mean((2, 3), keepdim=True)) is GlobalAveragePool's
// arithmetic: it becomes one, followed by a Flatten to [N, C] where the mean drops the
// dims, so it runs as a bundle kernel and, between blocked convs, on the blocked layout
// (the reference ReduceMean took 73 us of MNASNet's 3.3 ms, and its conv wrote NCHW for
// it). With GraphOptions::means_as_global_pools.
void means_as_global_pools(Graph& graph);
// A Transpose that moves only dims of extent 1 (BERT's [1,128,256] to [128,1,256]) keeps
// the element order: it becomes a Reshape to its output's shape, which the runtime runs
// as a view, not a copy.
void transpose_as_reshape(Graph& graph);
// A chain of Transposes and views (Reshape, Flatten, Squeeze, Unsqueeze, Identity), each
// value between them read by the next alone, with two Transposes or more, whose index map
// is one transpose of a view of its input (every view cuts whole factors of the dims
// before it) -> a view, one Transpose of the fewest dims, and a view: SegFormer's MixFFN
// turned tokens to NCHW planes and those to blocked lanes, two copies of 2 MiB each, where
// one copy of 64-byte runs does both. With GraphOptions::compose_transposes; runs after
// block_activations, whose layout copies join such chains.
void compose_transposes(Graph& graph);
// DepthToSpace and SpaceToDepth as ONNX defines them: a view of X in six dims, a Transpose
// and a view, which run as bundle kernels (ESPCN's 3 MiB PixelShuffle took 711 us on the
// reference kernels, 86 as a Transpose) and compose with their neighbours. With
// GraphOptions::compose_transposes.
void lower_depth_space(Graph& graph);
// A 2-D ConvTranspose (and with `with_1d` a 1-D one, as a 2-D one of one row viewed back
// at the end: GraphOptions::lower_1d_conv_transposes) of one group and no dilation, with
// constant weights (and bias), f32, of known dims, as a Conv and a depth-to-space: output
// row o + pads_begin = q * S + r sums x[q - j] W[j * S + r] over j < M = ceil(K / S), so
// each phase r is a conv of X by an M x M window of W's taps r, r + S, ... reversed
// (zeros past K). One Conv computes all S x S phases as M x S x S channels (pads M - 1
// before, enough after for every output row), a Reshape, Transpose (0, 1, 4, 2, 5, 3)
// and Reshape interleave them, and a Slice takes the output's rows and columns from
// pads_begin. fuse_conv then takes the Conv like any other. U-Net's 2x2 stride-2
// upsamplings become 1x1 convs; DCGAN's 4x4 stride-2 ones 2x2 convs.
void lower_conv_transpose(Graph& graph, bool with_1d);

// A Conv with constant weights whose outermost taps along a spatial dim read only padding
// for every output (DeepLabV3's atrous pyramid at rate 36 on a 28x28 map: a 3x3 conv whose
// eight outer taps never reach the map) -> the same Conv of the taps that read the input,
// its pads given up by what the dropped taps spanned, where neither pad goes below zero.
// With GraphOptions::drop_padding_taps.
void drop_padding_taps(Graph& graph);

// Conv (2-D, f32; or 1-D and 3-D with constant weights, for lower_1d_to_rows and
// lower_3d_to_frames) -> NeeConv, then
// folds into it, when each is the sole consumer of the NeeConv's output: a BatchNormalization with constant parameters (constant weights
// needed; new constant weights and bias), an Add of a same-shape tensor (residual), and
// a Relu, a Clip with constant bounds, a HardSwish or a HardSigmoid with alpha 1/6 and
// beta 0.5, or the nodes of x * sigmoid(x) (SiLU), of x * HardSigmoid(x) (Hardswish) or
// of PyTorch's Erf-based GELU (activation_patterns.h) when they are x's only readers.
void fuse_conv(Graph& graph);
// Sequence CNNs' 1-D ops as 2-D ones over rows. A 1-D NeeConv (fuse_conv's, epilogue
// fused) of X [N, C, L] -> the 2-D NeeConv of X viewed as [N, C, 1, L], its weights
// [M, C/G, K] as [M, C/G, 1, K], a residual viewed the same way, writing [N, M, 1, L'];
// a 1-D MaxPool or AveragePool -> the 2-D pool of X's rows with a 1 x K window. Each
// result is viewed as the model's [N, M, L'] for other readers; a lowered node reading
// another's result reads its rows, so block_activations can block them between convs.
// All views, no copies. Audio and sequence CNNs' Conv1d ran on the reference kernel at
// 19 GFLOP/s. Runs right after fuse_conv.
void lower_1d_to_rows(Graph& graph);

// RNN, GRU and LSTM nodes with constant W, R and B, f32, of known dims: the input
// projection of every step, X viewed [S * B, I] times W^T [I, dirs * gates * H] plus Wb
// and Rb (a GRU's candidate Rb aside), becomes one Gemm (which the matmul passes make a
// NeeMatMul, a bundle kernel), viewed back [S, B, dirs * gates * H]; the recurrence
// becomes the internal op NeeRecurrence, reading that projection at slot 0, R packed by
// blocks of units (recurrent_weights_packed) at 1, a GRU's candidate Rb [dirs, H] at 2,
// and ONNX's sequence_lens, initial_h, initial_c and P at 4 to 7, with the node's
// attributes and its op as "cell", writing its outputs (runtime/reference/recurrent.cpp).
void lower_recurrent(Graph& graph);

// Video CNNs' 3-D ops as 2-D ones over frames. A 3-D NeeConv (fuse_conv's, epilogue
// fused) -> the 2-D NeeConv of each output frame: X [N, C, T, H, W] -> NeeFrameGather ->
// [N * T', G * KT * C/G, H, W] (per output frame, the KT input frames its window reads,
// zeros where it reads the time padding) -> NeeConv with the weights [M, C/G, KT, KH, KW]
// reordered to [M, KT * C/G, KH, KW] and the 2-D pads, strides, dilations and groups ->
// frames [N * T', M, H', W']. A 3-D MaxPool or AveragePool -> a 2-D pool of the frames
// viewed as [N, 1, T, C * H * W] over time (window KT x 1), then one of the frames over
// the planes (both separable). A Concat along channels of such ops' results -> a Concat
// of their frames. Each lowered op's result Y is its frames viewed as [N, T', M, H', W']
// then Transposed (0, 2, 1, 3, 4), but a lowered op reading Y (as a conv's X or residual,
// a pool's X, or a concat operand) reads the frames instead, and the Transpose goes when
// nothing else reads Y: block_activations can then keep the frames channel-blocked from
// conv to conv. A conv of one tap, time stride 1 and no time padding reads frames as they
// are; one whose M is not a multiple of 16 and whose result only lowered convs of one
// group read as X writes M widened with zeros, which those read through zero weights.
// A residual or a pooled X of ONNX's layout is made frames by a Transpose (0, 2, 1, 3, 4)
// or a one-tap gather. R3D-18's 3-D convs ran 2.85 s a run on the reference kernel, S3D's
// max pools 680 ms. Runs right after fuse_conv, which makes 3-D NeeConvs for it alone.
//
// The internal op "NeeFrameGather": attributes kernel, stride, dilation, pad_begin (the
// time axis's), group, input_frames (absent or 0: X is [N, C, T, H, W]; T: X is frames
// [N * T, C, H, W]) and input_block (absent or 0: NCHW frames; 16: channel-blocked
// frames, and a blocked output); out[n * T' + t, (g * KT + k) * C/G + c] = the plane of
// frame t * stride + k * dilation - pad_begin of sample n, channel g * C/G + c, or zeros
// outside [0, T).
void lower_3d_to_frames(Graph& graph);
// A two-operand f32 Einsum that is a batched matrix product (labels of both operands and
// the output batch dims, labels of one operand and the output free, labels of both
// operands alone summed, at least one; no diagonals, no broadcasting, no label summed
// within one operand) becomes a MatMul of its operands arranged [batch..., I, K] and
// [batch..., K, J] (each by a Transpose where its labels come in another order, and a
// Reshape where I, J or K are several labels or none), its product viewed back and put in
// the output's order: MaxViT's attention products ("B G H I D, B G H J D -> B G H I J"
// and its partner) ran 10.7 s of its 10.8 s a run on the reference Einsum.
void einsum_as_matmul(Graph& graph);
void fuse_gemm(Graph& graph);          // Gemm -> NeeMatMul
void convert_matmul(Graph& graph);     // MatMul with rank >= 2 operands -> NeeMatMul
// MatMul, or NeeMatMul without bias or activation, then Add of a broadcastable bias ->
// NeeMatMul with C.
void fuse_matmul_add(Graph& graph);
// NeeMatMul without activation then Mul by, or Div by, a one-element constant ->
// NeeMatMul with alpha (and beta) scaled: attention's 1/sqrt(d).
void fold_matmul_scale(Graph& graph);
// NeeMatMul whose A or B is a Mul by, or Div by, a one-element constant that only it reads
// -> the NeeMatMul of the unscaled operand with alpha scaled: attention's query (or query
// and key) scaled by 1/sqrt(d) before the product. With GraphOptions::fold_operand_scales.
void fold_matmul_operand_scales(Graph& graph);
// NeeMatMul by an untransposed constant 2-D B (and a constant bias per column, or none)
// whose product only Slices and Splits read, each cutting ranges of its last dim -> one
// NeeMatMul per range over those columns of B and the bias, in the reader's place:
// attention's packed query, key and value projection computes the three parts directly,
// with no copies. Runs before fold_matmul_batch. With GraphOptions::split_matmul_columns.
void split_matmul_columns(Graph& graph);
// The same for a NeeConv of one group with constant weights (and bias), no residual,
// whose output (or the one Reshape of it that keeps its batch and channel dims, a 1-D
// conv's rows viewed back) only channel Slices and Splits read: one NeeConv per channel
// range, viewed as the reader's output where the Reshape was. A WaveNet's gated units
// (tanh of one half of a conv's channels times the sigmoid of the other) and GLUs read
// their halves so; split, each half can be channel-blocked. With
// GraphOptions::split_conv_channels.
void split_conv_channels(Graph& graph);
void fuse_matmul_relu(Graph& graph);   // NeeMatMul then Relu -> NeeMatMul relu=1
void fuse_matmul_gelu(Graph& graph);   // NeeMatMul then PyTorch's GELU nodes -> NeeMatMul gelu=1
// Transpose swapping the last two dims of X [..., S, C], read only by a NeeMatMul (not
// transposed) by a constant 2-D W [S, S'] (with a constant bias over its columns, or none),
// whose product only a Transpose swapping its last two dims reads -> NeeMatMul(W^T, X) with
// the bias over rows [S', 1]: the same [..., S', C], without the two copies. The token
// mixing of MLP-Mixer, gMLP and ResMLP (a Linear over the tokens between transposes); and
// a product by a constant A runs at N = C (768 for gMLP), where the transposed one ran at
// N = S' (196): `nee-bench --shape 196x196x768 --shape 768x196x196 --engines nee-default`
// 301.5 and 234.3 GFLOP/s (Intel Xeon, AVX-512). With
// GraphOptions::fold_transposes_into_products.
void fold_transposes_into_products(Graph& graph);
// An inference-mode BatchNormalization of an f32 matrix [N, C] whose input is a
// NeeMatMul's product by a constant 2-D W [K, C] (with a constant bias over its columns,
// or none; no activation), read directly or through Reshapes or Flattens of its rows that
// keep the columns, each the sole reader -> the product by W times the norm's scale per column,
// with its shift (and the bias scaled) as the bias: LeViT's Linear-and-BatchNorm1d pairs,
// whose norms ran as elementwise kernels, 10% of its time. With
// GraphOptions::fold_batch_norms_into_products.
void fold_batch_norms_into_products(Graph& graph);
// Maximal trees of f32 elementwise nodes (Add, Sub, Mul, Div, Max, Min, Relu, Neg, Abs,
// Sqrt, Exp, Log, Sigmoid, Tanh, Erf, Reciprocal, Pow by a constant scalar, Clip with
// constant bounds, LeakyRelu, PRelu, HardSigmoid, HardSwish) whose inner results each have one
// reader -> one NeeElementwise per tree, a single node included. One-element f32
// constants become immediates; other operands become input slots in order of first use.
void fuse_elementwise(Graph& graph);
// A NeeElementwise over [N, C, L] that reads a 1-D conv's rows (lower_1d_to_rows: a
// Reshape of [N, C, 1, L]) -> the same over the rows, its other operands viewed as rows
// too and its result viewed back; a Reshape of that view back to the rows then reads the
// rows themselves. Between 1-D convs, the elementwise ops (a WaveNet's gated units) so
// join the blocked layout. With `group_norms`, a NeeGroupNorm over such rows (Conv-TasNet's
// global layer norms between its 1-D convs) runs over them the same way. Runs after
// fuse_elementwise. With GraphOptions::elementwise_over_rows (and
// GraphOptions::group_norms_over_rows).
void elementwise_over_rows(Graph& graph, bool group_norms);

// An inference-mode BatchNormalization that no conv took (fuse_conv), of an NCHW f32
// tensor of 16k channels, with constant parameters -> Mul and Add by per-channel
// constants [C, 1, 1], which fuse_elementwise joins with the ops around them and
// block_activations can run channel-blocked (DenseNet's BatchNormalization and Relu before
// each conv). Runs before fuse_elementwise, with the block_elementwise option only: on
// NCHW tensors the reference kernel was faster (DESIGN-NOTES, session 26). With `matrices`
// (GraphOptions::batch_norms_of_matrices) also of f32 matrices [N, C], by constants [C]:
// LeViT's BatchNorm1d over its tokens took 37% of its run on the reference kernel, which
// steps one element at a time where the channels are the innermost dim.
void batch_norm_as_mul_add(Graph& graph, bool matrices);

// torch.nn.GroupNorm as PyTorch exports it (Reshape [N, C, S...] -> [N, G, rest],
// InstanceNormalization with constant scale and bias of G, Reshape back, then Mul and Add
// by per-channel constants, each optional) -> the internal op NeeGroupNorm(X, scale [C],
// bias [C]) with attributes groups and epsilon, the affine steps folded into its scale and
// bias; any other f32 InstanceNormalization of rank 3 or more -> NeeGroupNorm with one
// channel a group (runtime/reference/group_norm.cpp, which block_activations may give
// channel-blocked tensors). The reference InstanceNormalization ran at 0.1 GFLOP/s, half
// of a style-transfer CNN's time. Runs before fuse_elementwise, which would take the Mul
// and Add; with GraphOptions::fuse_group_norms.
void fuse_group_norm(Graph& graph);
// A NeeGroupNorm read only by a NeeElementwise (the activation after a U-Net's or wav2vec's
// GroupNorm) -> NeeGroupNormAffine, the norm's scale and shift for each channel of each
// image (a and b of y = x * a + b, in the input's layout), and the elementwise kernel
// computing x * a + b first: the norm's output pass and the activation's read of it become
// one bundle kernel. Runs after block_activations, so either layout. With
// GraphOptions::group_norm_affine_into_elementwise.
void group_norm_affine_into_elementwise(Graph& graph);

// LayerNormalization with only its Y output -> NeeLayerNorm; and the chain exporters emit
// for torch.nn.LayerNorm before opset 17 -> NeeLayerNorm: ReduceMean(X) over trailing
// axes, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, then optionally Mul Scale and Add
// B, each intermediate read only inside the chain. With `rms_norms`
// (GraphOptions::fuse_rms_norms) also RMSNorm's chain -> NeeLayerNorm with rms 1: Pow 2
// (or X * X), ReduceMean over trailing axes, Add epsilon, Sqrt, then a Div of X by it or
// its reciprocal times X, then optionally a Mul by a scale over the row's elements, and
// ONNX's RMSNormalization (opset 23).
void fuse_layer_norm(Graph& graph, bool rms_norms);

// NeeMatMul of A [..., M, K] (rank >= 3, not transposed) by a 2-D B, with no bias or a
// bias over columns only -> Reshape A to [rows, K], the same NeeMatMul on it, Reshape
// the [rows, N] product back: batch dims over a shared B are more rows of one GEMM.
// The Reshapes are views (no copy), and every such matmul shares its workload with the
// 2-D ones of its shape (BERT's [128,1,256] x [256,768] input projection becomes a
// 128-row GEMM instead of 128 one-row ones).
void fold_matmul_batch(Graph& graph);

// NeeMatMul(Q, K^T) (alpha, an optional C as the mask), its sole reader a Softmax over the
// last axis, and that read only as A of NeeMatMul(P, V) (alpha 1, no C), all rank 3 ->
// one NeeAttention: softmax(alpha * Q x K^T + beta * C) x V with the scores kept inside
// the kernel. Attributes layout ("gsd": Q [G,S,D], K^T [G,D,T], V [G,T,Dv], out
// [G,S,Dv]; "sgd": Q [S,G,D], K [T,G,D], V [T,G,Dv], out [S,G,Dv]), scale (alpha) and,
// with a mask, mask_scale (beta); inputs Q, K, V and the optional mask
// (core/attention_workload.h). "sgd" when each product operand is a Transpose read only
// there, by (1,0,2) for Q and V and (1,2,0) for K, and the output's sole reader a
// Transpose by (1,0,2): those Transposes go, the kernel reading and writing through them.
// With `over_heads` (GraphOptions::fuse_attention_over_heads) also products of rank 4 over
// [B, H, S, D] as models written with heads as a dim export them (CLIP's, MobileViT's,
// Hugging Face's): Reshape views to [B H, S, D], a mask whose dims before its last two are
// 1 viewed as those two (one per head [B, H, S, T] as [B H, S, T]), "gsd", and the output
// viewed back; with `through_head_transposes` (GraphOptions::attention_through_head_transposes)
// at B = 1 "sgd" where Transposes by (0,2,1,3) make Q and V of [1, S, H, D] projections (K^T
// by (0,2,3,1), or (0,2,1,3) then (0,1,3,2)) and one turns the output back (Hugging Face's
// attention): those Transposes go, the kernel reading the projections viewed as [S, H, D].
// With GraphOptions::fuse_attention.
void fuse_attention(Graph& graph, bool over_heads, bool through_head_transposes);

// Widens conv outputs whose channels C (above 1) are not a multiple of 16 to a multiple
// C', so block_activations can block them: a NeeConv of one group with constant weights
// writes C' channels through weights and bias grown with zeros, and reads a widened X
// through weights grown with zero input channels; a grouped conv of a widened X whose
// groups fit it (C' of X and the output's make whole groups), with zero filters for its
// extra groups, MaxPool, AveragePool and the global pools of it, and NeeElementwise ops
// whose programs keep finite values finite (no exp, log, sqrt, pow, reciprocal, or
// division by a computed value) and whose per-channel operands are widened or constant
// (grown with zeros) write C' too. C' is the next multiple of 16, or of lcm(16, g) where
// grouped convs of g channels a group keep the value's channels (unless that grows C by
// more than half), so widen_conv_groups can merge their groups into blocks: RegNetY-1.6GF's
// 5 groups of 24 on 120 channels widen to 6 on 144. The extra channels hold zeros or what
// those ops make of them, always finite, and every conv weight that reads them is zero,
// so the model's channels are computed exactly as before. Any other reader (a Concat, a
// Flatten) gets one Slice back to C. A value is widened only where some reader takes it
// widened (largest such set), and never a graph output. Runs after fuse_elementwise,
// before pack_conv_weights. With GraphOptions::pad_channels.
void pad_channels(Graph& graph);

// A NeeElementwise computing x * g(per-channel operands) of one sample, whose sole reader
// is a NeeConv of one group taking it as X, with constant weights W smaller than x: the
// conv reads x, and weights W'[o, c, ...] = W[o, c, ...] * g[c] made by the same program
// over W (the per-channel operands viewed along W's dim 1), since the conv is linear in
// each input channel and zero padding stays zero. Squeeze-and-excite's gate then costs a
// pass over the weights, not over the activation. Runs after pack_conv_weights and
// pad_channels, before block_activations. With GraphOptions::fold_channel_gates.
void fold_channel_gates(Graph& graph);

// A NeeConv of G groups of w input and w output channels each, with constant weights ->
// the same conv with m = lcm(w, 16) / w neighbouring groups merged into one of lcm(w, 16)
// channels, the weights between channels of different original groups zero, so
// pack_conv_weights can block it (groups_fill_weight_blocks), where G divides by m: for w
// a divisor of 16 from `min_width` (and 2) up (ResNeXt-50's 3x3 convs of 4 and 8 channels
// a group, merged into groups of 16), and with `merge_wider` for w neither a divisor nor a
// multiple of 16 where m is at most kMostMergedGroups (RegNetY-1.6GF's groups of 24, in
// pairs of 48). It multiplies their FLOPs by m; with `record_width` the latter convs keep
// w as group_width (core/conv2d_workload.h), whose blocked kernels then skip the inputs
// none of a weight block's channels weighs (the blocks of RegNetY's pairs read 24, 48
// and 24 of their 48 inputs).
// Runs before pack_conv_weights. With GraphOptions::widen_conv_groups as `min_width` (0:
// no divisor of 16), merge_conv_groups as `merge_wider` and record_group_widths as
// `record_width`.
void widen_conv_groups(Graph& graph, int64_t min_width, bool merge_wider, bool record_width);

// NeeConv of group 1, or with `grouped` of groups of whole blocks
// (groups_fill_weight_blocks), with constant W -> the same with W channel-blocked (a new constant,
// the plain one removed when nothing else reads it), so kernels that vectorize over
// output channels read whole weight vectors. Runs last: the fusions edit W in ONNX's
// layout (BatchNormalization folding scales its rows).
void pack_conv_weights(Graph& graph, bool grouped);
// The step pack_conv_weights takes for one NeeConv; false (and nothing changed) unless W
// is a rank-4 f32 constant not blocked yet.
bool block_conv_weights(Graph& graph, Node& node);

// NeeMatMul whose B is an untransposed 2-D f32 constant that fills panels, or any such B
// with `pad_panels` (core/matmul_weight_layout.h) -> the same with B packed ahead of time
// as [ceil(N / 16), K, 16] (b_block 16, and b_columns N where the last panel is padded; a
// new constant, the plain one removed when nothing else reads it). With
// GraphOptions::pack_matmul_weights only (and pad_matmul_panels): CPU kernels.
void pack_matmul_weights(Graph& graph, bool pad_panels);

// NeeMatMul whose B is a constant the importer dequantized from 8-bit or 4-bit integers
// (Graph::dequantized_origin), its scale one value, one per column, or one per block of
// rows -> the same reading the integers in panels (b_block 16, b_bits 8 or 4, b_group
// rows per scale; core/matmul_weight_layout.h: QuantizedMatrix) and their groups' scales
// and offsets as a third operand; the f32 constant is removed when nothing else reads it.
// A 4-bit weight takes 1/8 of its f32 bytes, an 8-bit one 1/4, and a product of few rows
// (a decoder's token) reads that much less. With GraphOptions::pack_matmul_weights and
// quantize_matmul_weights: CPU kernels.
void quantize_matmul_weights(Graph& graph);

// NeeMatMul whose A is an activation quantized to 8 bits and back (Graph::quantized_origin:
// a QDQ pair of one scale and zero point, or A - a_zero_point where DynamicQuantizeLinear
// made both), directly or through Reshapes, and whose B [K, N] is a constant dequantized
// from 8-bit integers per tensor or per column (K a multiple of 4, the integers less their
// zero points signed bytes) -> an integer product (MatmulAttrs::a_bits) of x, which the
// kernel quantizes, by B's integers in panels of four rows, each column's multiplier the
// weights' scale times A's where A is scaled; the nodes that made A go where nothing else
// reads it. Its sums are exact where the f32 product rounds. With
// GraphOptions::quantize_matmul_activations: CPU kernels, fast where the CPU has VNNI.
void quantize_matmul_activations(Graph& graph);

// A QDQ pair's f32 steps (quantize_pairs_as_elementwise: Div by the scale, Round, [Add the
// zero point], Clip to the integer range, [Sub], Mul by the scale) that alone read a NeeConv's
// output -> the conv's epilogue (Conv2dAttrs::requantize_scale), the same f32 operations, so
// the pair's pass over the activation goes: a QDQ EfficientNet-B0 puts a pair after every conv,
// read by its SiLU's two ops. The pair's output keeps its quantized origin, now itself. With
// GraphOptions::requantize_conv_outputs.
void requantize_conv_outputs(Graph& graph);

// NeeConv of group 1 whose X is noted as quantized to 8 bits and back by one scale and zero
// point (Graph::quantized_origin: a QDQ pair's, or DynamicQuantizeLinear's where a ConvInteger
// became a Conv) and whose W was dequantized from 8-bit integers per tensor or per output
// channel (their values less the zero points signed bytes) -> an integer conv
// (Conv2dAttrs::a_bits) of x, which its kernel quantizes, by W's integers packed
// (core/conv_weight_layout.h), each channel's multiplier W's scale times X's where X is scaled;
// the nodes that made X go where nothing else reads it. Runs before pack_conv_weights. With
// GraphOptions::quantize_conv_activations: CPU kernels, fast where the CPU has VNNI.
void quantize_conv_activations(Graph& graph);

// MatMulInteger (A - a_zero_point) x (B - b_zero_point) and ConvInteger whose B (W) and
// its zero point are constants, the zero point for A (X) one value, and the int32 result
// read only by a Cast to f32 (what onnxruntime's dynamic quantization writes) -> a MatMul
// (Conv) of A - a_zero_point cast to f32 by B - b_zero_point as an f32 constant, writing
// the Cast's output; a MatMul's integers are noted, so quantize_matmul_weights keeps them
// (a scale of 1 per tensor or column). The products of integers below 256 in magnitude
// are exact in f32, their sums while below 2^24. The reference kernels ran a 128x1024x256
// MatMulInteger in 154 ms and a ResNet-18's 20 ConvIntegers in 1078. With
// GraphOptions::quantize_matmul_weights.
void integer_products_as_float(Graph& graph);

// DequantizeLinear(QuantizeLinear(x)) with one constant scale and zero point each (what
// static QDQ quantization puts on activations) -> the f32 ops it computes: x / scale,
// Round (ties to even), + zero, Clip to the integer type's range, - zero, * scale, which
// fuse_elementwise runs as one kernel; the QuantizeLinear goes once nothing else reads it.
// The same values: each step is exact in f32 or the same operation. A static QDQ
// ResNet-18's 33 pairs took 41 of its 62 ms on the reference kernels. With
// GraphOptions::quantize_pairs_as_elementwise.
// With `note_product_inputs` (GraphOptions::quantize_matmul_activations), an 8-bit pair of
// one scale and zero point that a MatMul or Gemm by weights dequantized from integers reads
// has its x noted (Graph::quantized_origin) on its output and on the integers less the zero
// point, for quantize_matmul_activations.
// With `note_conv_inputs` (GraphOptions::quantize_conv_activations) likewise for a Conv's X by
// such weights, on the pair's output, for quantize_conv_activations; with
// `convs_read_shared_pairs` (GraphOptions::convs_read_shared_pairs) the output is its own x
// where something besides such convs reads it.
void quantize_pairs_as_elementwise(Graph& graph, bool note_product_inputs = false, bool note_conv_inputs = false,
                                   bool convs_read_shared_pairs = false);

// Keeps activations channel-blocked between convolutions: the output of a NeeConv with
// blocked weights (group 1, channels a multiple of 16, not a graph output) that another
// such NeeConv reads, as X or as its residual, becomes blocked (output_block), and its
// readers read it so (input_block); channel Concats, with `block_pools` MaxPool and
// AveragePool, and with `block_elementwise` NeeElementwise ops whose other operands are
// per channel or scalar, NeeGroupNorms, with `block_pads` Pads of the planes (any mode)
// and with `block_resizes` nearest and linear Resizes of the planes (scales of 1 for N
// and C; a lane's plane resized like an NCHW plane) carry the layout through when a
// blocked reader takes their output. With
// `block_elementwise` a global pool of a blocked tensor reads it blocked too
// (its [N, C, 1, 1] result has the same bytes in either layout); with
// `block_global_pool_inputs` too, a conv's output that only such global pools and blocked
// readers read is blocked for the pools (a CNN's last conv before its head), where it
// was written in NCHW, which the conv's epilogue transposes. Any other reader gets one
// NeeLayout copy back to NCHW (a Reshape where the planes are 1x1; with
// `layouts_as_transposes` and 16k channels a Transpose between Reshapes), and a residual
// whose layout differs from its conv's output one copy across. A
// depthwise NeeConv with constant weights and 16k channels joins in when its X is
// blocked: its weights are blocked here and it reads X blocked (vectorized over
// channels, it would gather from NCHW planes). Runs after pack_conv_weights. Only CPU
// kernels schedule blocked activations.
void block_activations(Graph& graph, const GraphOptions& options);

// Transforms the constant weights of every NeeConv for which conv2d_winograd_tile (of its
// workload, with `bound_weights`: GraphOptions::winograd_weight_bound) picks a tile, and
// sets its winograd_tile. Runs after block_activations.
void use_winograd(Graph& graph, bool bound_weights);

// A NeeFrameGather of frames ([N * T, C, H, W], NCHW or blocked) whose one reader is a
// direct-sum NeeConv of one group, reading it as X alone, goes: the conv reads the frames
// in place (its frame_taps and the gather's stride, dilation and pad as frame_stride,
// frame_dilation and frame_pad, T and T' as frames_in and frames_out; conv2d_workload.h).
// S3D's gathers wrote 3-3.5 times their input (180 MB for its first temporal conv) and
// took 17 of its 121 ms in nodes. With GraphOptions::convs_read_frames; runs last, so no
// other pass meets such a conv.
void convs_read_frames(Graph& graph);

// The passes in the order: remove_identity, quantize_pairs_as_elementwise and
// integer_products_as_float (when options say), fold_zero_pads, means_as_global_pools (when
// options say), transpose_as_reshape, lower_depth_space (when options say),
// lower_conv_transpose, fuse_conv, lower_1d_to_rows, lower_3d_to_frames,
// split_conv_channels (when options say), lower_recurrent, einsum_as_matmul, fuse_gemm,
// convert_matmul, fold_matmul_scale, fuse_matmul_add, fold_matmul_scale again (a scaling
// after the bias Add, as BERT's query projection has), fuse_matmul_relu,
// fuse_matmul_gelu, fuse_layer_norm, fuse_group_norm, fold_matmul_operand_scales and
// batch_norm_as_mul_add and requantize_conv_outputs (when options say), fuse_elementwise,
// elementwise_over_rows,
// split_matmul_columns and fold_matmul_batch, fuse_attention, pad_channels and
// widen_conv_groups (when options say),
// quantize_conv_activations (when options say), pack_conv_weights (grouped convs when
// options say), then quantize_matmul_activations,
// quantize_matmul_weights and pack_matmul_weights,
// fold_channel_gates, block_activations, compose_transposes, use_winograd and
// convs_read_frames (when options say).
// The epilogue and layer-norm fusions come first so they take precedence;
// fuse_elementwise collects what is left.
void optimize_graph(Graph& graph, const GraphOptions& options = {});

}  // namespace nee
