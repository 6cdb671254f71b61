#include "bench/engines/loaded_kernel.h"

namespace nee::bench {

LoadedKernel::LoadedKernel(const std::string& library_path, const std::string& symbol, const Workload& workload,
                           int threads)
    : library_(std::make_unique<SharedLibrary>(library_path)),
      kernel_(std::make_unique<HalideKernel>(*library_, symbol)) {
  kernel_->check_signature(workload.inputs, workload.output);
  attach_kernel_pool(*library_, threads);
}

}  // namespace nee::bench
