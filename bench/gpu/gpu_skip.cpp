// gpu_main for a build without the CUDA toolkit or cuDNN.
#include <fmt/format.h>

#include "bench/gpu/gpu_main.h"

namespace nee::bench {

int gpu_main(int argc, char** argv) {
  fmt::print("nee-bench --gpu: skipped: this nee-bench was built without GPU mode (CMake found no CUDA "
             "toolkit, or no cuDNN library or cudnn.h); no GPU figures are reported\n");
  return 0;
}

}  // namespace nee::bench
