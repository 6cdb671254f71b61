#include "core/sliding_window.h"

namespace nee {

int64_t dilated_extent(int64_t kernel, int64_t dilation) { return (kernel - 1) * dilation + 1; }

int64_t sliding_output_size(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                            int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  const int64_t span = input + pad_begin + pad_end - dilated_extent(kernel, dilation);
  if (span < 0) return 0;
  if (!ceil_mode) return span / stride + 1;
  int64_t output = (span + stride - 1) / stride + 1;
  if ((output - 1) * stride >= input + pad_begin) --output;
  return output;
}

}  // namespace nee
