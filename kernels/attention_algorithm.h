#pragma once
#include <vector>

#include <Halide.h>

#include "core/attention_workload.h"

namespace nee {

// The attention family as a Halide algorithm: what is computed, never how. Every Func is
// indexed (key or value column, query, group), whatever the operands' layout; the
// layout shows only in how the inputs are read and the output written.
struct AttentionPipeline {
  Halide::ImageParam q, k, v, mask;  // mask is defined only when the workload has one
  Halide::Func keys;    // keys(t, d, g): K^T, 0 past the last key (a schedule may round t up)
  Halide::Func dot;     // dot(t, s, g) += Q x K^T over d
  Halide::Func logits;  // scale * dot + mask_scale * mask
  Halide::Func row_max, exps, row_sum;  // over t: the softmax's max, exp(logit - max), sum
  Halide::Func values;    // values(dv, t, g): V, 0 past the last column (a schedule may round dv up)
  Halide::Func weighted;  // weighted(dv, s, g) += exps x values over t
  Halide::Func out;       // weighted / row_sum, in the output's layout
  Halide::Var t{"t"}, d{"d"}, s{"s"}, g{"g"}, dv{"dv"};
  Halide::RDom rd, rt;  // over D and over T
  AttentionDims dims{};
  bool sequence_major = false;
  // out's pure args in order: (dv, s, g) group-major, (dv, g, s) sequence-major.
  std::vector<Halide::Var> out_args() const;

  std::vector<Halide::Argument> arguments() const;  // q, k, v, [mask]
};

AttentionPipeline define_attention(const Workload& w);

}  // namespace nee
