#include "kernels/layernorm_algorithm.h"

#include "core/error.h"
#include "core/family.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

std::vector<Argument> LayernormPipeline::arguments() const {
  std::vector<Argument> args = {input, scale};
  if (bias.defined()) args.push_back(bias);
  return args;
}

LayernormPipeline define_layernorm(const Workload& w) {
  if (family_of(w).id != FamilyId::layernorm) throw Error("define_layernorm got a '" + w.op + "' workload");
  const auto& shape = w.inputs[0].shape;
  const int rank = static_cast<int>(shape.size());
  LayernormPipeline p;
  p.row_dims = rank - static_cast<int>(layernorm_axis(w));
  for (int d = 0; d < rank; ++d) {
    p.dims.push_back(Var("d" + std::to_string(d)));
    p.extents.push_back(shape[rank - 1 - d]);
  }
  p.input = ImageParam(Float(32), rank, "input");
  constrain_dense_input(p.input, shape);
  const auto& scale_shape = w.inputs[1].shape;
  p.scale = ImageParam(Float(32), static_cast<int>(scale_shape.size()), "scale");
  constrain_dense_input(p.scale, scale_shape);

  std::vector<Range> row;
  for (int d = 0; d < p.row_dims; ++d) row.emplace_back(0, static_cast<int>(p.extents[d]));
  p.r = RDom(row, "r");
  const std::vector<Var> row_index(p.dims.begin() + p.row_dims, p.dims.end());
  const std::vector<Expr> row_coords(row_index.begin(), row_index.end());
  std::vector<Expr> at_r;
  for (int d = 0; d < p.row_dims; ++d) at_r.push_back(p.r[d]);
  at_r.insert(at_r.end(), row_coords.begin(), row_coords.end());
  const float n = static_cast<float>(layernorm_row_length(w));

  p.centered = Func("centered");
  if (layernorm_is_rms(w)) {
    // RMSNorm: the values themselves, uncentered; sum_x stays undefined.
    p.centered(p.dims) = p.input(p.dims);
  } else {
    p.sum_x = Func("sum_x");
    p.sum_x(row_index) = 0.0f;
    p.sum_x(row_index) += p.input(at_r);
    p.centered(p.dims) = p.input(p.dims) - p.sum_x(row_coords) / n;
  }
  p.sum_sq = Func("sum_sq");
  p.sum_sq(row_index) = 0.0f;
  p.sum_sq(row_index) += p.centered(at_r) * p.centered(at_r);
  p.inv_std = Func("inv_std");
  p.inv_std(row_index) = 1.0f / sqrt(p.sum_sq(row_coords) / n + static_cast<float>(layernorm_epsilon(w)));

  const std::vector<Expr> coords(p.dims.begin(), p.dims.end());
  Expr value = p.centered(p.dims) * p.inv_std(row_coords) * p.scale(broadcast_coords(scale_shape, coords));
  if (layernorm_has_bias(w)) {
    const auto& bias_shape = w.inputs[2].shape;
    p.bias = ImageParam(Float(32), static_cast<int>(bias_shape.size()), "bias");
    constrain_dense_input(p.bias, bias_shape);
    value = value + p.bias(broadcast_coords(bias_shape, coords));
  }
  p.out = Func("out");
  p.out(p.dims) = value;
  return p;
}

}  // namespace nee
