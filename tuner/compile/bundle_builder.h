#pragma once
#include <string>
#include <vector>

#include "core/target.h"
#include "core/workload.h"
#include "runtime/bundle/bundle_manifest.h"
#include "tuner/compile/object_cache.h"
#include "tuning-db/tuning_database.h"

namespace nee {

struct BundleRequest {
  std::vector<Workload> workloads;
  Target target;
  // CPU targets: the ISA levels (core/isa_level.h) to build a variant of every kernel
  // for, each from the records tuned for that level; empty: the target's own level only.
  std::vector<std::string> isa_levels;
  std::string model_path;  // recorded with its hash so the runtime can refuse other models
  std::string output_dir;
  bool use_database = true;  // false: every kernel gets its default schedule (untuned)
  int jobs = 2;
  double timeout_s = 300;
  GraphOptions graph;  // the rewrites the workloads were taken with (optimize_graph's defaults)
  // A PEM file of an Ed25519 private key: the bundle is signed with it (manifest.sig,
  // runtime/bundle/bundle_signature.h); empty: unsigned.
  std::string signing_key;
  // Objects compiled before are linked from here, and new ones kept here; off: all compiled.
  ObjectCache object_cache;
};

// The levels `--isa` names: comma-separated level names, "host" for this machine's own
// level, or "all" (also for empty text): every level this machine runs. nee::Error for
// an unknown name.
std::vector<std::string> bundle_isa_levels(const std::string& text);

// Compiles the best database record of each workload (the default schedule where none
// is tuned, or where the record's kernel ran slower in a model than the default's:
// TuningRecord::slower_in_model) into a shared library with a C table of kernels
// (runtime/bundle/bundle_abi.h), one library per ISA level, and writes the manifest, and
// its signature when a signing key is given (read before anything is compiled, so a bad
// key fails at once). Builds in a fresh folder and swaps it in only when complete, so a
// failed build leaves an existing bundle as it was.
BundleManifest build_bundle(const TuningDatabase* db, const BundleRequest& request);

// Compiles into the request's object cache (which must be on) every object
// build_bundle(db, request) would link, as the database stands now. A kernel's object is
// the one its schedule was measured with (the symbol is the workload's), so after a search
// build_bundle compiles nothing this call or the search did not: nee-tune calls it before
// a search under --time, whose budget then holds the bundle's compiles.
void compile_bundle_objects(const TuningDatabase* db, const BundleRequest& request);

}  // namespace nee
