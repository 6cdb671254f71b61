#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/bundle/bundle_signature.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "runtime/tensor_limits.h"

namespace nee {

// A deploy artifact: a folder that runs a model with no import, no graph pass and no
// weight repacking at load.
//   deploy.json   what the folder holds and the sha256 of each part below (written last,
//                 so a folder cut short by a crash is refused as incomplete)
//   graph.json    the graph as optimized for the bundle's kernels (runtime/deploy/graph_file.h),
//                 for the first set of input shapes it was written for
//   graph-<i>.json  the same for each further set (i from 1)
//   weights.bin   every constant's bytes in the layout those kernels read (conv weights
//                 already blocked, Winograd-transformed, Linear weights transposed),
//                 64-byte aligned, mapped at load and read in place; bytes that several
//                 graphs hold are stored once
//   bundle/       the kernel bundle, as nee-tune built it (its manifest holds the
//                 libraries' sha256)
//   deploy.sig    with nee-tune --sign: the Ed25519 signature of deploy.json
inline constexpr const char* kDeployManifestName = "deploy.json";

// The most sets of input shapes one artifact holds.
inline constexpr size_t kMaxDeployGraphs = 64;

// Writes the artifact for `optimized` (per set of input shapes, a graph after
// optimize_graph with the bundle's graph options, shapes static, the same inputs and
// outputs in each) and the bundle in `bundle_dir` into `out_dir`, which must not exist or
// be empty. With a key, deploy.sig signs deploy.json, and so, through its hashes, every
// part. nee::Error naming the problem otherwise.
void write_deploy_artifact(const std::vector<Graph>& optimized, const std::string& bundle_dir,
                           const std::string& out_dir, const BundleSigningKey* key = nullptr);

// Whether `path` is a deploy artifact's folder (it holds deploy.json).
bool is_deploy_artifact(const std::string& path);
// The graph inputs deploy.json names, in order, without loading the artifact.
std::vector<std::string> deploy_artifact_inputs(const std::string& dir);

struct DeployLoadOptions {
  // Its model_path is ignored: the artifact's hashes bind its parts. With trusted keys,
  // deploy.json must be signed by one of them (deploy.sig), checked before any other
  // part is read, and the bundle inside too.
  BundleLoadOptions bundle;
  MemoryCaps memory_caps;
  // Hash the mapped weights against deploy.json's sha256 (their size is always checked).
  // It is most of a load's time: 62 of 74 ms for ResNet-50's 112 MiB on a 2-core EPYC.
  // Off only where something else vouches for the file (a read-only, verified image).
  bool verify_weights = true;
  // Where weights that matched are remembered (VerifiedFileCache), so that a later load
  // of the same unchanged file skips the hash; "" (the default): hash at every load.
  // Programs pass VerifiedFileCache::default_dir().
  std::string verified_cache_dir;
};

// The artifact's graph and bundle, checked: deploy.json's format and NEE version, each
// part's sha256 against deploy.json (weights hashed on the mapped bytes), then the bundle
// as KernelBundle::load checks it. nee::Error naming the part that is missing, damaged
// or of another build.
struct DeployedModel {
  std::vector<Graph> graphs;  // one per set of input shapes, in the order they were written
  std::shared_ptr<KernelBundle> bundle;
  bool weights_hashed = false;  // false: unchecked, or vouched for by the verified-file cache
};
DeployedModel load_deploy_artifact(const std::string& dir, const DeployLoadOptions& options);

// The index of the graph whose inputs have the shapes `shapes` gives (for each input it
// names; an empty map: the first graph). nee::Error naming the input, its shape and the
// sets the artifact holds where none matches.
size_t deployed_graph_for(const std::vector<Graph>& graphs, const std::map<std::string, std::vector<int64_t>>& shapes);

// A prepared session over a loaded artifact's graph for those shapes (deployed_graph_for):
// the bundle's kernels, the reference kernels for the rest, and no graph pass (the graph
// is optimized already).
std::unique_ptr<Session> make_deployed_session(DeployedModel model, const MemoryCaps& caps,
                                               const std::map<std::string, std::vector<int64_t>>& shapes = {});

}  // namespace nee
