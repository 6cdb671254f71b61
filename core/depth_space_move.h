#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nee {

// DepthToSpace and SpaceToDepth as ONNX defines them: X [N, C, H, W] viewed in six dims, those
// transposed by `perm`, and the result viewed as the output. `mode` is DCR or CRD.
struct DepthSpaceMove {
  std::vector<int64_t> view, perm;
};
DepthSpaceMove depth_space_move(bool to_space, const std::string& mode, int64_t blocksize,
                                const std::vector<int64_t>& nchw);

}  // namespace nee
