// Fuzz target: manifest.json bytes -> BundleManifest::parse (JSON, then from_json); no
// kernel library is opened. nee::Error is the documented refusal. A manifest that parses
// must survive its own round trip: text() parsed again gives the same text, or abort().
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "fuzz/refusal.h"
#include "runtime/bundle/bundle_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nee::BundleManifest manifest;
  try {
    manifest = nee::BundleManifest::parse(text, "fuzz/manifest.json");
  } catch (const nee::Error& e) {
    nee::fuzz::note_refusal(e);
    return 0;
  }
  const std::string saved = manifest.text();
  std::string again;
  try {
    again = nee::BundleManifest::parse(saved, "fuzz/saved-manifest.json").text();
  } catch (const nee::Error& e) {
    std::fprintf(stderr, "a manifest that parsed is refused once saved: %s\n", e.what());
    std::abort();
  }
  if (again != saved) {
    std::fprintf(stderr, "a manifest's saved text changes when parsed and saved again:\n%s\n%s\n", saved.c_str(),
                 again.c_str());
    std::abort();
  }
  return 0;
}
