#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.h"

namespace nee {

// The strided_copy family: an affine index map from one f32 tensor to another, which
// covers ONNX Transpose and Slice with positive steps. Output dim k reads input dim
// perm[k]; along input dim j the copy takes its elements from starts[j], steps[j] apart:
//   out[i_0, ..., i_{r-1}] = in[j] with j[perm[k]] = starts[perm[k]] + i_k * steps[perm[k]].
// A Transpose is (perm, starts 0, steps 1); a Slice is (the identity perm, its starts and
// steps), its output extents taken from its ends. A copy computes nothing: flops() is 0.
struct StridedCopyAttrs {
  std::vector<int64_t> perm;    // per output dim: the input dim it reads
  std::vector<int64_t> starts;  // per input dim: the first index read
  std::vector<int64_t> steps;   // per input dim: the distance between indices read, >= 1
};

// `output_shape`: the output's extents (output dim k takes output_shape[k] elements along
// input dim perm[k]). A step along an output dim of extent 1 is never taken, so the key
// stores it as 1: two nodes that read the same elements share a kernel. Throws nee::Error
// naming the problem (a perm that is not a permutation, a step below 1, a read past the
// input's end, an empty dim).
Workload make_strided_copy_workload(const TensorType& input, const StridedCopyAttrs& attrs,
                                    const std::vector<int64_t>& output_shape);
StridedCopyAttrs strided_copy_attrs(const Workload& w);

// The output dim that reads the input's innermost (contiguous) dim. When it is not the
// output's innermost dim the copy transposes it, and a kernel that keeps its reads and
// its writes contiguous needs a 2-D tile over the two.
int64_t strided_copy_inner_source(const Workload& w);

// Parses the command line's `DxDx...xD[,perm=PxPx...][,starts=SxSx...][,steps=SxSx...]
// [,ends=ExEx...]`: the input shape, then per input dim (perm: per output dim) the
// attributes, with ONNX Slice's exclusive ends; omitted ones are the identity perm,
// starts 0, steps 1 and the input's extents. E.g. BERT's key transpose
// 128x4x64,perm=1x2x0, or a slice 1x128x2304,starts=0x0x768,ends=1x128x1536.
Workload strided_copy_workload_from_shape(const std::string& text);

}  // namespace nee
