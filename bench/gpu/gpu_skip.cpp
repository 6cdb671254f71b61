// gpu_main for a build without the CUDA toolkit.
#include <fmt/format.h>

#include "bench/gpu/gpu_main.h"

namespace nee::bench {

int gpu_main(int argc, char** argv) {
  fmt::print("nee-bench --gpu: skipped: this nee-bench was built without the CUDA toolkit "
             "(CMake's FindCUDAToolkit found none); no GPU figures are reported\n");
  return 0;
}

}  // namespace nee::bench
