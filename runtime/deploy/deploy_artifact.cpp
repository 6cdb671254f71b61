#include "runtime/deploy/deploy_artifact.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/version.h"
#include "runtime/bundle/bundle_folder.h"
#include "runtime/deploy/graph_file.h"
#include "runtime/deploy/verified_file_cache.h"

namespace nee {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "nee-deploy";
// 2: several graphs, one per set of input shapes ("graphs").
constexpr int kFormatVersion = 2;
// deploy.json and graph.json are descriptions, not data: their size is bounded well
// above what a model's graph needs (ResNet-50's graph.json: tens of KiB).
constexpr uint64_t kMaxDescriptionBytes = 64ull << 20;

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
}

constexpr const char* kDeploySignatureName = "deploy.sig";

std::string read_deploy_manifest_text(const BundleFolder& folder) {
  const std::optional<std::string> text = folder.read(kDeployManifestName, kMaxDescriptionBytes, "deploy manifest");
  if (!text) {
    throw Error(fmt::format("'{}' is not a deploy artifact, or one cut short: it has no {}", folder.path(),
                            kDeployManifestName));
  }
  return *text;
}

json parse_deploy_manifest(const std::string& text, const std::string& dir) {
  try {
    json manifest = json::parse(text);
    if (manifest.at("format").get<std::string>() == kFormat) return manifest;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("'{}/{}' is not a NEE deploy manifest", dir, kDeployManifestName));
}

// The file of the graph for the i-th set of input shapes: fixed names, so that a manifest
// cannot point outside the folder.
std::string graph_file_name(size_t i) { return i == 0 ? "graph.json" : fmt::format("graph-{}.json", i); }

std::string shapes_text(const Graph& graph) {
  std::string text;
  for (const std::string& name : graph.inputs()) {
    text += (text.empty() ? "" : ", ") + name + " " + graph.type_of(name).to_string();
  }
  return "(" + text + ")";
}

}  // namespace

bool is_deploy_artifact(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / kDeployManifestName, ec);
}

std::vector<std::string> deploy_artifact_inputs(const std::string& dir) {
  const json manifest = parse_deploy_manifest(read_deploy_manifest_text(BundleFolder(dir)), dir);
  try {
    return manifest.at("inputs").get<std::vector<std::string>>();
  } catch (const json::exception&) {
    throw Error(fmt::format("'{}/{}' names no graph inputs", dir, kDeployManifestName));
  }
}

void write_deploy_artifact(const std::vector<Graph>& optimized, const std::string& bundle_dir,
                           const std::string& out_dir, const BundleSigningKey* key) {
  if (optimized.empty() || optimized.size() > kMaxDeployGraphs) {
    throw Error(fmt::format("a deploy artifact holds 1 to {} graphs, not {}", kMaxDeployGraphs, optimized.size()));
  }
  for (const Graph& g : optimized) {
    if (g.inputs() != optimized[0].inputs() || g.outputs() != optimized[0].outputs()) {
      throw Error("the graphs of one deploy artifact must have the same inputs and outputs");
    }
  }
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_empty(out_dir, ec)) {
    throw Error(fmt::format("the deploy folder '{}' exists and is not empty: give a new folder", out_dir));
  }
  if (!fs::is_regular_file(fs::path(bundle_dir) / "manifest.json", ec)) {
    throw Error(fmt::format("'{}' holds no bundle manifest: build the bundle first", bundle_dir));
  }
  const fs::path out(out_dir);
  fs::create_directories(out / "bundle");
  for (const fs::directory_entry& e : fs::directory_iterator(bundle_dir)) {
    if (e.is_regular_file()) fs::copy_file(e.path(), out / "bundle" / e.path().filename());
  }
  WeightsFile weights;
  json hashes = json::object(), graph_files = json::array();
  for (size_t i = 0; i < optimized.size(); ++i) {
    const std::string text = serialize_graph(optimized[i], weights).dump();
    write_file(out / graph_file_name(i), text);
    hashes[graph_file_name(i)] = sha256_hex(text);
    graph_files.push_back(graph_file_name(i));
  }
  write_file(out / "weights.bin", weights.bytes());
  hashes["weights.bin"] = sha256_hex(weights.bytes());
  hashes["bundle/manifest.json"] = sha256_file((out / "bundle" / "manifest.json").string());
  json manifest = {{"format", kFormat},
                   {"format_version", kFormatVersion},
                   {"nee_version", kVersion},
                   {"inputs", optimized[0].inputs()},
                   {"outputs", optimized[0].outputs()},
                   {"graphs", graph_files},
                   {"weights_bytes", weights.bytes().size()},
                   {"sha256", hashes}};
  const std::string manifest_text = manifest.dump(2) + "\n";
  write_file(out / kDeployManifestName, manifest_text);
  if (key) write_file(out / kDeploySignatureName, key->sign(manifest_text));
}

DeployedModel load_deploy_artifact(const std::string& dir, const DeployLoadOptions& options) {
  const BundleFolder folder(dir);
  const std::string manifest_text = read_deploy_manifest_text(folder);
  // Under trusted keys the signature comes first: no other part is read unless a trusted
  // key signed the manifest that holds their hashes.
  if (options.bundle.trusted_keys) {
    options.bundle.trusted_keys->verify(dir + "/" + kDeployManifestName, manifest_text,
                                        folder.read(kDeploySignatureName, kMaxSignatureBytes, "deploy signature"),
                                        kDeploySignatureName);
  }
  const json manifest = parse_deploy_manifest(manifest_text, dir);
  // Each field read as the type it must be: a manifest from outside may hold anything.
  const auto field = [&](const char* name) { return manifest.contains(name) ? manifest[name] : json(); };
  const json version_field = field("format_version"), built_field = field("nee_version");
  const int64_t format_version = version_field.is_number_integer() ? version_field.get<int64_t>() : 0;
  const std::string built_by = built_field.is_string() ? built_field.get<std::string>() : "";
  if (format_version != kFormatVersion || built_by != kVersion) {
    throw Error(fmt::format("deploy artifact '{}' was written by NEE {} (format {}); this is NEE {} (format {}): "
                            "write it again with this NEE",
                            dir, built_by, format_version, kVersion, kFormatVersion));
  }
  const json hashes = field("sha256").is_object() ? field("sha256") : json::object();
  const auto check = [&](const std::string& part, const std::string& actual) {
    const std::string expected = hashes.contains(part) && hashes[part].is_string() ? hashes[part].get<std::string>() : "";
    if (actual != expected) {
      throw Error(fmt::format("deploy artifact '{}': {} is damaged or was replaced (sha256 {}, the manifest says {})",
                              dir, part, actual, expected));
    }
  };
  const json graphs_field = field("graphs");
  if (!graphs_field.is_array() || graphs_field.empty() || graphs_field.size() > kMaxDeployGraphs) {
    throw Error(fmt::format("deploy artifact '{}': its manifest lists no graphs, or more than {}", dir,
                            kMaxDeployGraphs));
  }
  std::vector<std::string> graph_texts;
  for (size_t i = 0; i < graphs_field.size(); ++i) {
    const std::string name = graph_file_name(i);
    if (graphs_field[i] != name) {
      throw Error(fmt::format("deploy artifact '{}': graph {} of its manifest is not {}", dir, i, name));
    }
    std::optional<std::string> text = folder.read(name, kMaxDescriptionBytes, "deploy graph");
    if (!text) throw Error(fmt::format("deploy artifact '{}' has no {}", dir, name));
    check(name, sha256_hex(*text));
    graph_texts.push_back(std::move(*text));
  }
  const std::optional<MappedBytes> weights = folder.map("weights.bin", "deploy weights");
  if (!weights) throw Error(fmt::format("deploy artifact '{}' has no weights.bin", dir));
  const json declared_field = field("weights_bytes");
  const uint64_t declared = declared_field.is_number_unsigned() ? declared_field.get<uint64_t>() : ~uint64_t{0};
  if (weights->size != declared) {
    throw Error(fmt::format("deploy artifact '{}': weights.bin is {} bytes, the manifest says {}", dir, weights->size,
                            declared));
  }
  const VerifiedFileCache verified(options.verified_cache_dir);
  const json expected_weights = hashes.contains("weights.bin") ? hashes["weights.bin"] : json();
  const std::string weights_sha = expected_weights.is_string() ? expected_weights.get<std::string>() : "";
  const bool hash_weights = options.verify_weights && !verified.vouches(weights->identity, weights_sha);
  if (hash_weights) {
    check("weights.bin", sha256_hex(weights->data.get(), weights->size));
    verified.remember(weights->identity, weights_sha);
  }
  const BundleFolder bundle_folder(dir + "/bundle");
  const std::optional<std::string> bundle_manifest = bundle_folder.read("manifest.json", kMaxDescriptionBytes, "bundle manifest");
  if (!bundle_manifest) throw Error(fmt::format("deploy artifact '{}' has no bundle/manifest.json", dir));
  check("bundle/manifest.json", sha256_hex(*bundle_manifest));

  DeployedModel model{{}, nullptr, hash_weights};
  for (size_t i = 0; i < graph_texts.size(); ++i) {
    const json description = json::parse(graph_texts[i], nullptr, /*allow_exceptions=*/false);
    if (description.is_discarded()) {
      throw Error(fmt::format("deploy artifact '{}': {} is not JSON", dir, graph_file_name(i)));
    }
    model.graphs.push_back(deserialize_graph(description, weights->data, weights->size));
    if (model.graphs.back().inputs() != model.graphs[0].inputs()) {
      throw Error(fmt::format("deploy artifact '{}': {} has other inputs than graph.json", dir, graph_file_name(i)));
    }
  }
  BundleLoadOptions load = options.bundle;
  load.model_path.clear();
  model.bundle = KernelBundle::load(dir + "/bundle", load);
  return model;
}

size_t deployed_graph_for(const std::vector<Graph>& graphs, const std::map<std::string, std::vector<int64_t>>& shapes) {
  if (graphs.empty()) throw Error("a deploy artifact without graphs");
  for (const auto& [name, shape] : shapes) {
    if (std::find(graphs[0].inputs().begin(), graphs[0].inputs().end(), name) == graphs[0].inputs().end()) {
      throw Error(fmt::format("the deploy artifact has no input '{}'", name));
    }
  }
  for (size_t i = 0; i < graphs.size(); ++i) {
    bool all = true;
    for (const auto& [name, shape] : shapes) all = all && graphs[i].type_of(name).shape == shape;
    if (all) return i;
  }
  std::string given, sets;
  for (const auto& [name, shape] : shapes) {
    given += fmt::format("{}{} [{}]", given.empty() ? "" : ", ", name, fmt::join(shape, ","));
  }
  for (const Graph& g : graphs) sets += (sets.empty() ? "" : "; ") + shapes_text(g);
  throw Error(fmt::format("the deploy artifact was not written for inputs of these shapes ({}): it holds {} (write "
                          "it for them with nee-tune --input-shape, once per set)",
                          given, sets));
}

std::unique_ptr<Session> make_deployed_session(DeployedModel model, const MemoryCaps& caps,
                                               const std::map<std::string, std::vector<int64_t>>& shapes) {
  const size_t chosen = deployed_graph_for(model.graphs, shapes);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(std::move(model.bundle)));
  auto session =
      std::make_unique<Session>(std::move(model.graphs[chosen]), std::move(providers), SessionOptions{nullptr, caps});
  session->prepare();
  return session;
}

}  // namespace nee
