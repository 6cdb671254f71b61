// libnee-onnx.so: NEE's importer and graph passes behind the one entry point libnee
// looks up (api/onnx_frontend.h).
#include "api/onnx_frontend.h"
#include "importer/import_onnx.h"
#include "runtime/passes/passes.h"

namespace {

std::shared_ptr<const nee::StagedModel> load_file(const std::string& path, const nee::MemoryCaps& caps) {
  return nee::load_staged_onnx(path, caps);
}

std::shared_ptr<const nee::StagedModel> load_bytes(const std::string& bytes, const nee::MemoryCaps& caps) {
  return nee::load_staged_onnx_bytes(bytes, caps);
}

}  // namespace

// Default visibility: the library is built with hidden visibility (api/CMakeLists.txt).
extern "C" __attribute__((visibility("default"))) const nee::OnnxFrontend* nee_onnx_frontend() {
  static const nee::OnnxFrontend frontend{NEE_BUILD_ID, &load_file, &load_bytes, &nee::optimize_graph};
  return &frontend;
}
