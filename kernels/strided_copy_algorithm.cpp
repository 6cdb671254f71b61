#include "kernels/strided_copy_algorithm.h"

#include "core/error.h"
#include "core/family.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

StridedCopyPipeline define_strided_copy(const Workload& w) {
  if (family_of(w).id != FamilyId::strided_copy) throw Error("define_strided_copy got a '" + w.op + "' workload");
  const StridedCopyAttrs a = strided_copy_attrs(w);
  const int rank = static_cast<int>(w.output.shape.size());
  StridedCopyPipeline p;
  for (int d = 0; d < rank; ++d) {
    p.dims.push_back(Var("d" + std::to_string(d)));
    p.extents.push_back(w.output.shape[rank - 1 - d]);
  }
  p.inner_source_dim = rank - 1 - static_cast<int>(strided_copy_inner_source(w));
  p.input = ImageParam(Float(32), rank, "input");
  constrain_dense_input(p.input, w.inputs[0].shape);

  // Output ONNX dim k (Halide dim rank-1-k) walks input ONNX dim perm[k] (Halide dim
  // rank-1-perm[k]).
  std::vector<Expr> coords(rank);
  for (int k = 0; k < rank; ++k) {
    const int64_t j = a.perm[k];
    coords[rank - 1 - j] = static_cast<int>(a.starts[j]) + p.dims[rank - 1 - k] * static_cast<int>(a.steps[j]);
  }
  p.read = Func("read");
  p.read(p.dims) = p.input(coords);
  p.out = Func("out");
  p.out(p.dims) = p.read(p.dims);
  return p;
}

}  // namespace nee
