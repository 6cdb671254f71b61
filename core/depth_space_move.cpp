#include "core/depth_space_move.h"

namespace nee {

DepthSpaceMove depth_space_move(bool to_space, const std::string& mode, int64_t blocksize,
                                const std::vector<int64_t>& nchw) {
  const int64_t b = blocksize, n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const bool dcr = mode == "DCR";
  if (!to_space) {
    // DCR: output channel (row in block, column in block, channel); CRD: (channel, row, column).
    if (dcr) return {{n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4}};
    return {{n, c, h / b, b, w / b, b}, {0, 1, 3, 5, 2, 4}};
  }
  if (dcr) return {{n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2}};
  return {{n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3}};
}

}  // namespace nee
