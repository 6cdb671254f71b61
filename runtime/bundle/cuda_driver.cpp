#include "runtime/bundle/cuda_driver.h"

#include <dlfcn.h>

namespace nee {

void expose_cuda_driver() {
  // Once per process; the handle stays open for the process's life, as the driver must.
  static void* const driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  (void)driver;
}

}  // namespace nee
