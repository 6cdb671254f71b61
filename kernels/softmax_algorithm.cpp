#include "kernels/softmax_algorithm.h"

#include <limits>

#include "core/error.h"
#include "core/family.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

SoftmaxPipeline define_softmax(const Workload& w) {
  if (family_of(w).id != FamilyId::softmax) throw Error("define_softmax got a '" + w.op + "' workload");
  const auto& shape = w.inputs[0].shape;
  const int rank = static_cast<int>(shape.size());
  SoftmaxPipeline p;
  p.axis_dim = rank - 1 - static_cast<int>(softmax_axis(w));
  for (int d = 0; d < rank; ++d) {
    p.dims.push_back(Var("d" + std::to_string(d)));
    p.extents.push_back(shape[rank - 1 - d]);
  }
  p.input = ImageParam(Float(32), rank, "input");
  constrain_dense_input(p.input, shape);
  p.r = RDom(0, static_cast<int>(p.extents[p.axis_dim]), "r");

  // Coordinates of every dim, with the axis taken from `at`; and the statistics' args.
  std::vector<Var> stat_args;
  for (int d = 0; d < rank; ++d) {
    if (d != p.axis_dim) stat_args.push_back(p.dims[d]);
  }
  const auto along_axis = [&](Expr at) {
    std::vector<Expr> coords(p.dims.begin(), p.dims.end());
    coords[p.axis_dim] = at;
    return coords;
  };
  const std::vector<Expr> stat_coords(stat_args.begin(), stat_args.end());

  p.row_max = Func("row_max");
  p.row_max(stat_args) = -std::numeric_limits<float>::infinity();
  p.row_max(stat_args) = max(p.row_max(stat_args), p.input(along_axis(p.r.x)));
  p.exps = Func("exps");
  p.exps(p.dims) = exp(p.input(p.dims) - p.row_max(stat_coords));
  p.row_sum = Func("row_sum");
  p.row_sum(stat_args) = 0.0f;
  p.row_sum(stat_args) += p.exps(along_axis(p.r.x));
  p.out = Func("out");
  // One division per row, not per element: the reciprocal is invariant in the row's loop
  // (ViT's [6,197,197] softmax, `nee-run` on a one-node model, 300 runs: 120 us dividing
  // each element, 113 us multiplying).
  p.out(p.dims) = p.exps(p.dims) * (1.0f / p.row_sum(stat_coords));
  return p;
}

}  // namespace nee
