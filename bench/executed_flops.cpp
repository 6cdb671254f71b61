#include "bench/executed_flops.h"

#include <fmt/format.h>

#include <vector>

#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/family.h"
#include "core/winograd_weights.h"

namespace nee::bench {

namespace {

// Adds and multiplies of one linear combination with these coefficients.
double combination_flops(const std::vector<double>& coefs) {
  double nonzero = 0, scaled = 0;
  for (double c : coefs) {
    if (c == 0.0) continue;
    nonzero += 1;
    if (c != 1.0 && c != -1.0) scaled += 1;
  }
  return nonzero == 0 ? 0 : nonzero - 1 + scaled;
}

double rows_flops(const std::vector<std::vector<double>>& rows) {
  double sum = 0;
  for (const std::vector<double>& r : rows) sum += combination_flops(r);
  return sum;
}

}  // namespace

ExecutedWork kernel_executed_work(const Workload& kernel_workload) {
  if (family_of(kernel_workload).id != FamilyId::conv2d || conv2d_attrs(kernel_workload).winograd_tile == 0) {
    return {kernel_workload.flops(), "direct"};
  }
  const WinogradTransforms& t = winograd_transforms(conv2d_attrs(kernel_workload).winograd_tile);
  const double m = t.m, alpha = t.alpha;
  const std::vector<int64_t> out = conv2d_nchw_output(kernel_workload).shape;
  const double images = static_cast<double>(out[0]);
  const double out_channels =
      static_cast<double>((out[1] + kConvWeightBlock - 1) / kConvWeightBlock * kConvWeightBlock);
  const double in_channels = static_cast<double>(conv2d_nchw_input(kernel_workload).shape[1]);
  const double tiles = images * static_cast<double>((out[2] + t.m - 1) / t.m) *
                       static_cast<double>((out[3] + t.m - 1) / t.m);
  // B^T (d B): alpha rows of d B per column of B, then alpha columns of B^T per row.
  const double input_transform = 2 * alpha * rows_flops(t.bt);
  // A^T (M A): alpha rows of M A per column of A, then m outputs per row of A^T.
  const double output_transform = (alpha + m) * rows_flops(t.at);
  const double per_tile = 2 * alpha * alpha * in_channels * out_channels + in_channels * input_transform +
                          out_channels * output_transform;
  return {tiles * per_tile, fmt::format("Winograd F({}x{},3x3)", t.m, t.m)};
}

}  // namespace nee::bench
