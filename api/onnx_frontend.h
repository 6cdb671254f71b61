#pragma once
// The ONNX front end of libnee: the importer and the graph passes, built as a library of
// its own (libnee-onnx.so.<version>) that libnee loads the first time a session is made
// from an ONNX model. A session over a deploy artifact needs neither (its graph is
// optimized already), so libnee links neither them nor protobuf and ONNX, and stays small
// for applications that deploy artifacts; OpenVINO splits its ONNX front end off its
// runtime the same way.
//
// The two libraries pass C++ objects (StagedModel, Graph, Tensor), which each compiles
// from the same sources: they must come from one build, which the build id checks.
#include <memory>
#include <string>

#include "runtime/session.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_limits.h"

namespace nee {

struct OnnxFrontend {
  const char* build_id;  // NEE_BUILD_ID of the build that made the library
  std::shared_ptr<const StagedModel> (*load_file)(const std::string& path, const MemoryCaps& caps);
  std::shared_ptr<const StagedModel> (*load_bytes)(const std::string& bytes, const MemoryCaps& caps);
  GraphOptimizer optimize;  // optimize_graph, for the stages of the models it loads
};

// The front end, loaded once per process from beside libnee (or from the file the
// environment variable NEE_ONNX_FRONTEND names). Throws nee::Error naming the file where
// it is missing, cannot be loaded, or comes from another build.
const OnnxFrontend& onnx_frontend();

}  // namespace nee

// The one symbol the front end's library exports.
extern "C" const nee::OnnxFrontend* nee_onnx_frontend();
