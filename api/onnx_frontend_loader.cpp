#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "api/onnx_frontend.h"
#include "core/error.h"

namespace nee {

namespace {

// libnee-onnx.so.<version> in the folder of the file this function was loaded from
// (libnee itself, wherever the application found it).
std::string default_frontend_path() {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&default_frontend_path), &self) || !self.dli_fname) {
    throw Error("cannot find the folder libnee was loaded from, to load the ONNX front end beside it");
  }
  const std::filesystem::path library = std::filesystem::canonical(self.dli_fname);
  return (library.parent_path() / ("libnee-onnx.so." NEE_VERSION)).string();
}

const OnnxFrontend& load_frontend() {
  const char* chosen = std::getenv("NEE_ONNX_FRONTEND");
  const std::string path = chosen && *chosen ? chosen : default_frontend_path();
  const std::string context = fmt::format(
      "sessions from ONNX models need NEE's ONNX front end, '{}' (deploy artifacts do not)", path);
  // Never closed: the models and graphs it makes hold its code (destructors, deleters).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(fmt::format("{}: cannot load it: {}", context, why ? why : "unknown error"));
  }
  const auto entry = reinterpret_cast<const OnnxFrontend* (*)()>(dlsym(handle, "nee_onnx_frontend"));
  if (!entry) throw Error(fmt::format("{}: it has no symbol nee_onnx_frontend", context));
  const OnnxFrontend* frontend = entry();
  if (!frontend || !frontend->build_id || std::strcmp(frontend->build_id, NEE_BUILD_ID) != 0) {
    throw Error(fmt::format("{}: it comes from another build of NEE (build id {}, libnee's {})", context,
                            frontend && frontend->build_id ? frontend->build_id : "none", NEE_BUILD_ID));
  }
  return *frontend;
}

}  // namespace

const OnnxFrontend& onnx_frontend() {
  // A failed load is tried again by the next call (the file may have been installed).
  static std::mutex mutex;
  static const OnnxFrontend* loaded = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) loaded = &load_frontend();
  return *loaded;
}

}  // namespace nee
