#include <string>

#include "bench/gpu/gpu_main.h"

namespace nee::bench {

bool wants_gpu_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--gpu") return true;
  }
  return false;
}

}  // namespace nee::bench
