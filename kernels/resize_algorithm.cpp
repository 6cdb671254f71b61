#include "kernels/resize_algorithm.h"

#include "core/error.h"
#include "core/family.h"
#include "core/resize_coordinates.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

namespace {

// The taps of output index v along a dim of `in_dim` input elements: what ONNX's
// reference computes per index (runtime/reference/resize.cpp), as Halide expressions.
struct Taps {
  Expr lo, hi;  // clamped input indices (nearest: lo is the one copied)
  Expr weight;  // of hi, linear only
};

Taps taps_of(const ResizeAttrs& a, const Var& v, double scale, int64_t in_dim) {
  // strict_float: the simplifier may not rewrite a division by the scale as a multiply,
  // which would move a coordinate off an integer or off a tie and pick another neighbour.
  const Expr source = strict_float(resize_source_coordinate<Expr>(a.coordinates, cast<double>(v), scale, in_dim));
  const Expr floored = floor(source);
  const Expr fraction = source - floored;
  // An integral coordinate counts as ratio 1 from its left neighbour.
  const Expr integral = fraction == Expr(0.0);
  const Expr left = cast<int>(select(integral, floored - Expr(1.0), floored));
  const Expr ratio = select(integral, Expr(1.0), fraction);
  const int last = static_cast<int>(in_dim - 1);
  Taps t;
  if (a.mode == "nearest") {
    // The right neighbour at ratio 1 (an integral coordinate), else by nearest_mode.
    Expr right = ratio == Expr(1.0);
    if (a.nearest_mode == "ceil") right = ratio > Expr(0.0);
    if (a.nearest_mode == "round_prefer_floor") right = right || ratio > Expr(0.5);
    if (a.nearest_mode == "round_prefer_ceil") right = ratio >= Expr(0.5);
    t.lo = clamp(select(right, left + 1, left), 0, last);
    return t;
  }
  t.lo = clamp(left, 0, last);
  t.hi = clamp(left + 1, 0, last);
  t.weight = cast<float>(ratio);
  return t;
}

}  // namespace

std::vector<Func> ResizePipeline::tables() const {
  if (!linear) return {col_lo, row_lo};
  return {col_lo, col_hi, col_weight, row_lo, row_hi, row_weight};
}

ResizePipeline define_resize(const Workload& w) {
  if (family_of(w).id != FamilyId::resize) throw Error("define_resize got a '" + w.op + "' workload");
  const ResizeAttrs a = resize_attrs(w);
  const std::vector<int64_t>& in_shape = w.inputs[0].shape;
  const int rank = static_cast<int>(in_shape.size());
  ResizePipeline p;
  p.linear = a.mode == "linear";
  for (int d = 0; d < rank; ++d) {
    p.dims.push_back(Var("d" + std::to_string(d)));
    p.extents.push_back(w.output.shape[rank - 1 - d]);
  }
  p.input = ImageParam(Float(32), rank, "input");
  constrain_dense_input(p.input, in_shape);
  p.w_dim = a.lanes != 0 ? 1 : 0;
  const Var x = p.col(), y = p.row();
  const int64_t in_w = in_shape[rank - 1 - p.w_dim], in_h = in_shape[rank - 2 - p.w_dim];
  const Taps cols = taps_of(a, x, a.scale_w, in_w), rows = taps_of(a, y, a.scale_h, in_h);
  p.col_lo = Func("col_lo");
  p.col_lo(x) = cols.lo;
  p.row_lo = Func("row_lo");
  p.row_lo(y) = rows.lo;

  // A table computed once is opaque to bounds inference: the clamps at each read bound
  // the input's region (and cost nothing where the tables are inlined).
  const auto column = [&](const Func& table) { return clamp(table(x), 0, static_cast<int>(in_w - 1)); };
  const auto row = [&](const Func& table) { return clamp(table(y), 0, static_cast<int>(in_h - 1)); };
  const auto at = [&](const Expr& col, const Expr& row_index, const Func& source) {
    std::vector<Expr> coords(p.dims.begin(), p.dims.end());
    coords[p.w_dim] = col;
    coords[p.w_dim + 1] = row_index;
    return source(coords);
  };
  p.out = Func("out");
  if (!p.linear) {
    p.out(p.dims) = at(column(p.col_lo), row(p.row_lo), p.input);
    return p;
  }
  p.col_hi = Func("col_hi");
  p.col_hi(x) = cols.hi;
  p.col_weight = Func("col_weight");
  p.col_weight(x) = cols.weight;
  p.row_hi = Func("row_hi");
  p.row_hi(y) = rows.hi;
  p.row_weight = Func("row_weight");
  p.row_weight(y) = rows.weight;
  p.rows = Func("rows");
  const Expr wx = p.col_weight(x);
  p.rows(p.dims) = (1.0f - wx) * at(column(p.col_lo), y, p.input) + wx * at(column(p.col_hi), y, p.input);
  const Expr wy = p.row_weight(y);
  p.out(p.dims) = (1.0f - wy) * at(x, row(p.row_lo), p.rows) + wy * at(x, row(p.row_hi), p.rows);
  return p;
}

}  // namespace nee
