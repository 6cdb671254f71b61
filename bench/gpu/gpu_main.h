#pragma once

namespace nee::bench {

// True when argv holds --gpu: nee-bench then compares on the CUDA device.
bool wants_gpu_mode(int argc, char** argv);
// `nee-bench --gpu [...]`: cuBLAS sgemm and cuDNN convolution on the suites' shapes,
// checked against the reference before any time. Without a CUDA device (or a build
// without the CUDA toolkit) it says that it skipped and why, and returns 0: it never
// reports a number it did not measure.
int gpu_main(int argc, char** argv);

}  // namespace nee::bench
