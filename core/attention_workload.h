#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.h"

namespace nee {

// The attention family: softmax(scale * Q x K^T + mask_scale * M) x V for each of G
// groups (the batch and the heads, as one dim), computed per row of queries without the
// [G, S, T] scores ever leaving the kernel. f32 operands of rank 3, in one of two layouts:
//   group-major ("gsd"): Q [G, S, D], K^T [G, D, T], V [G, T, Dv], out [G, S, Dv]: the
//     two products' operands as a graph's MatMuls read them;
//   sequence-major ("sgd"): Q [S, G, D], K [T, G, D], V [T, G, Dv], out [S, G, Dv]: the
//     heads' projections as they come from the reshaped Linear layers, before the
//     Transposes that exporters put around the products (torch.nn.MultiheadAttention),
//     which the kernel then reads and writes through.
// The optional mask M (causal or padding, additive) broadcasts to [G, S, T] and has rank
// 1 to 3.
enum class AttentionLayout { group_major, sequence_major };

struct AttentionAttrs {
  AttentionLayout layout = AttentionLayout::group_major;
  double scale = 1.0;
  double mask_scale = 1.0;  // in the key only with a mask
};

// Validates the operands against the layout and makes the workload; nee::Error naming
// the mismatch. `mask` may be null.
Workload make_attention_workload(const TensorType& q, const TensorType& k, const TensorType& v,
                                 const TensorType* mask, const AttentionAttrs& attrs);
AttentionAttrs attention_attrs(const Workload& w);
bool attention_has_mask(const Workload& w);

// The extents every layout shares.
struct AttentionDims {
  int64_t groups, queries, keys, depth, value_depth;  // G, S, T, D, Dv
};
AttentionDims attention_dims(const Workload& w);

// "GxSxTxD[,dv=Dv][,layout=gsd|sgd][,scale=F][,mask=none|causal|rows][,mask_scale=F]" as
// `nee-tune --op attention --shape` reads it: mask "causal" is a [S, T] mask, "rows" one
// of [G, 1, T] (a padding mask per group). Defaults: Dv = D, layout gsd, scale
// 1/sqrt(D), no mask, mask_scale 1.
Workload attention_workload_from_shape(const std::string& text);

}  // namespace nee
