// An ONNX front end as another build of NEE would make it: the entry point libnee looks
// up (api/onnx_frontend.h), with another build id and no functions.
#include "api/onnx_frontend.h"

extern "C" __attribute__((visibility("default"))) const nee::OnnxFrontend* nee_onnx_frontend() {
  static const nee::OnnxFrontend frontend{"another build", nullptr, nullptr, nullptr};
  return &frontend;
}
