// A kernel bundle for a small MLP, built once (default schedules, no database): it loads,
// runs the model's matmuls on the "bundle" provider with the reference's answers, and
// every kind of mismatch between bundle, runtime and model is refused with a message
// that names it. Each refusal test tampers with its own copy of the bundle.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/isa_level.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/bundle/bundle_signature.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/profiling/chrome_trace.h"
#include "runtime/profiling/flop_account.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"
#include "schedules/schedule_space.h"
#include "test_key_pair.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;
using test::set_attr;

std::string mlp_bytes(uint64_t weight_seed) {
  const int64_t batch = 3, in = 8, hidden = 16, out = 4;
  OnnxModelBuilder m;
  m.input("x", {batch, in}).output("y", {batch, out});
  m.initializer("w1", random_tensor({DType::f32, {in, hidden}}, weight_seed + 1));
  m.initializer("b1", random_tensor({DType::f32, {hidden}}, weight_seed + 2));
  m.initializer("w2", random_tensor({DType::f32, {hidden, hidden}}, weight_seed + 3));
  m.initializer("b2", random_tensor({DType::f32, {hidden}}, weight_seed + 4));
  m.initializer("w3", random_tensor({DType::f32, {out, hidden}}, weight_seed + 5));
  m.initializer("b3", random_tensor({DType::f32, {out}}, weight_seed + 6));
  m.node("MatMul", {"x", "w1"}, {"h1"}, "fc1");
  m.node("Add", {"h1", "b1"}, {"h1b"}, "fc1_bias");
  m.node("Relu", {"h1b"}, {"a1"}, "fc1_relu");
  m.node("MatMul", {"a1", "w2"}, {"h2"}, "fc2");
  m.node("Add", {"h2", "b2"}, {"h2b"}, "fc2_bias");
  m.node("Relu", {"h2b"}, {"a2"}, "fc2_relu");
  set_attr(m.node("Gemm", {"a2", "w3", "b3"}, {"y"}, "head"), "transB", int64_t{1});
  return m.bytes();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class Bundle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = ::testing::TempDir() + "nee-bundle-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    model_ = root_ + "/mlp.onnx";
    write_file(model_, mlp_bytes(10));
    Graph graph = import_onnx(model_);
    optimize_graph(graph);
    workloads_ = extract_workloads(graph);
    BundleRequest request;
    request.workloads = workloads_;
    request.target = host_target(TargetKind::cpu);
    // Two variants on any machine with more than one level: the lowest and its own.
    request.isa_levels = {host_isa_levels().front()->name, host_isa_level().name};
    request.model_path = model_;
    request.output_dir = root_ + "/bundle";
    request.use_database = false;
    request.jobs = 2;
    test::write_ed25519_key_pair(root_ + "/key.pem", root_ + "/key.pub.pem");
    request.signing_key = root_ + "/key.pem";
    manifest_ = build_bundle(nullptr, request);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  void SetUp() override {
    copy_ = root_ + "/copy-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(copy_);
    fs::copy(root_ + "/bundle", copy_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(copy_); }

  // The lowest level this machine runs and its own; the bundle holds a variant of each.
  static std::string low() { return host_isa_levels().front()->name; }
  static std::string high() { return host_isa_level().name; }
  static std::string high_library() { return "/kernels-" + high() + ".so"; }

  nlohmann::json manifest_json() const { return nlohmann::json::parse(read_file(copy_ + "/manifest.json")); }
  void save_manifest(const nlohmann::json& j) const { write_file(copy_ + "/manifest.json", j.dump(2)); }

  // The message of the error load() throws, or a failure when it does not throw.
  std::string load_error(BundleLoadOptions options = {}) const {
    if (options.model_path.empty()) options.model_path = model_;
    try {
      KernelBundle::load(copy_, options);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "the tampered bundle was loaded";
    return "";
  }

  static std::string root_, model_;
  static std::vector<Workload> workloads_;
  static BundleManifest manifest_;
  std::string copy_;
};

std::string Bundle::root_, Bundle::model_;
std::vector<Workload> Bundle::workloads_;
BundleManifest Bundle::manifest_;

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(Bundle, ManifestDescribesTheBuild) {
  ASSERT_EQ(workloads_.size(), 3u);
  ASSERT_EQ(manifest_.variants.size(), low() == high() ? 1u : 2u);
  EXPECT_EQ(manifest_.variants.front().isa, low());
  EXPECT_EQ(manifest_.variants.back().isa, high());
  for (const BundleVariant& v : manifest_.variants) {
    EXPECT_EQ(v.halide, isa_level_named(v.isa).halide);
    EXPECT_TRUE(fs::exists(copy_ + "/kernels-" + v.isa + ".so")) << v.isa;
    ASSERT_EQ(v.kernels.size(), 3u);
    for (const BundleKernelEntry& k : v.kernels) {
      EXPECT_EQ(k.source, "default");
      EXPECT_EQ(k.symbol.substr(k.symbol.size() - v.isa.size()), v.isa);
    }
  }
  EXPECT_EQ(manifest_.model_file, "mlp.onnx");
  EXPECT_EQ(manifest_.target.kind(), TargetKind::cpu);
  EXPECT_FALSE(fs::exists(root_ + "/bundle.building"));
  const BundleManifest reloaded = BundleManifest::load(copy_);
  ASSERT_EQ(reloaded.variants.size(), manifest_.variants.size());
  EXPECT_EQ(reloaded.variants.back().library_sha256, manifest_.variants.back().library_sha256);
}

TEST_F(Bundle, ManifestRecordsTheGraphRewrites) {
  EXPECT_TRUE(manifest_.graph == GraphOptions{});
  EXPECT_TRUE(BundleManifest::load(copy_).graph == GraphOptions{});
  auto j = manifest_json();
  j["graph"]["block_activations"] = true;
  save_manifest(j);
  EXPECT_TRUE(BundleManifest::load(copy_).graph.block_activations);
  // Bundles from before blocked pools were recorded were built without them.
  j["graph"].erase("block_pools");
  save_manifest(j);
  EXPECT_FALSE(BundleManifest::load(copy_).graph.block_pools);
  j["graph"]["block_pools"] = true;
  save_manifest(j);
  EXPECT_TRUE(BundleManifest::load(copy_).graph.block_pools);
  // So were those from before blocked elementwise ops and global pools, grouped convs,
  // packed matmul weights, folded operand scales and split products.
  const std::vector<std::pair<const char*, bool GraphOptions::*>> later_options = {
      {"block_elementwise", &GraphOptions::block_elementwise},
      {"block_grouped_convs", &GraphOptions::block_grouped_convs},
      {"pack_matmul_weights", &GraphOptions::pack_matmul_weights},
      {"fold_operand_scales", &GraphOptions::fold_operand_scales},
      {"fuse_attention", &GraphOptions::fuse_attention},
      {"pad_channels", &GraphOptions::pad_channels},
      {"fold_channel_gates", &GraphOptions::fold_channel_gates},
      {"merge_conv_groups", &GraphOptions::merge_conv_groups},
      {"fuse_group_norms", &GraphOptions::fuse_group_norms},
      {"fold_pads_into_convs", &GraphOptions::fold_pads_into_convs},
      {"split_conv_channels", &GraphOptions::split_conv_channels},
      {"elementwise_over_rows", &GraphOptions::elementwise_over_rows},
      {"block_pads", &GraphOptions::block_pads},
      {"lower_1d_conv_transposes", &GraphOptions::lower_1d_conv_transposes},
      {"group_norms_over_rows", &GraphOptions::group_norms_over_rows},
      {"drop_padding_taps", &GraphOptions::drop_padding_taps},
      {"block_resizes", &GraphOptions::block_resizes},
      {"convs_read_frames", &GraphOptions::convs_read_frames},
      {"record_group_widths", &GraphOptions::record_group_widths},
      {"means_as_global_pools", &GraphOptions::means_as_global_pools},
      {"winograd_weight_bound", &GraphOptions::winograd_weight_bound},
      {"block_global_pool_inputs", &GraphOptions::block_global_pool_inputs},
      {"quantize_matmul_weights", &GraphOptions::quantize_matmul_weights},
      {"quantize_matmul_activations", &GraphOptions::quantize_matmul_activations},
      {"quantize_conv_activations", &GraphOptions::quantize_conv_activations},
      {"requantize_conv_outputs", &GraphOptions::requantize_conv_outputs},
      {"convs_read_shared_pairs", &GraphOptions::convs_read_shared_pairs},
      {"layouts_as_transposes", &GraphOptions::layouts_as_transposes},
      {"compose_transposes", &GraphOptions::compose_transposes},
      {"remove_whole_slices", &GraphOptions::remove_whole_slices},
      {"batch_norms_of_matrices", &GraphOptions::batch_norms_of_matrices},
      {"fold_transposes_into_products", &GraphOptions::fold_transposes_into_products},
      {"fold_batch_norms_into_products", &GraphOptions::fold_batch_norms_into_products},
      {"group_norm_affine_into_elementwise", &GraphOptions::group_norm_affine_into_elementwise},
      {"fuse_attention_over_heads", &GraphOptions::fuse_attention_over_heads},
      {"attention_through_head_transposes", &GraphOptions::attention_through_head_transposes},
      {"quantize_pairs_as_elementwise", &GraphOptions::quantize_pairs_as_elementwise},
      {"split_matmul_columns", &GraphOptions::split_matmul_columns},
      {"pad_matmul_panels", &GraphOptions::pad_matmul_panels},
      {"fuse_rms_norms", &GraphOptions::fuse_rms_norms},
      {"remove_same_type_casts", &GraphOptions::remove_same_type_casts}};
  for (const auto& [option, member] : later_options) {
    j["graph"].erase(option);
    save_manifest(j);
    EXPECT_FALSE(BundleManifest::load(copy_).graph.*member) << option;
    j["graph"][option] = true;
    save_manifest(j);
    EXPECT_TRUE(BundleManifest::load(copy_).graph.*member) << option;
  }
  // The narrowest grouped conv widened is a width, absent (none) in older manifests.
  j["graph"].erase("widen_conv_groups");
  save_manifest(j);
  EXPECT_EQ(BundleManifest::load(copy_).graph.widen_conv_groups, 0);
  j["graph"]["widen_conv_groups"] = 4;
  save_manifest(j);
  EXPECT_EQ(BundleManifest::load(copy_).graph.widen_conv_groups, 4);
  j.erase("graph");
  save_manifest(j);
  EXPECT_HAS(load_error(), "malformed");
}

TEST_F(Bundle, LoadsAndRunsTheModelLikeTheReference) {
  BundleLoadOptions options;
  options.model_path = model_;
  const auto bundle = KernelBundle::load(copy_, options);
  for (const Workload& w : workloads_) EXPECT_NE(bundle->find(w.key()), nullptr) << w.key();

  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(model_), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model_), {}, SessionOptions{optimize_graph});
  for (uint64_t seed : {1, 2}) {
    const Tensor x = random_tensor({DType::f32, {3, 8}}, seed);
    const Tensor got = with_bundle.run({{"x", x}}).at("y");
    const Tensor want = reference.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    double total = 0;
    for (int64_t i = 0; i < got.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4) << i;
      total += std::fabs(want.data_as<float>()[i]);
    }
    EXPECT_GT(total, 0);
  }
  const auto placements = with_bundle.placements();
  ASSERT_EQ(placements.size(), 3u);
  for (const Placement& p : placements) {
    EXPECT_EQ(p.op, "NeeMatMul");
    EXPECT_EQ(p.provider, "bundle") << p.node;
    EXPECT_EQ(p.kernel.rfind("nee_", 0), 0u) << p.kernel;
    // Untuned everywhere, so the highest level this CPU runs.
    EXPECT_EQ(p.kernel.substr(p.kernel.size() - high().size()), high()) << p.kernel;
  }
  EXPECT_EQ(bundle->kernels_by_level(), (std::map<std::string, int>{{high(), 3}}));
  for (const Placement& p : reference.placements()) EXPECT_EQ(p.provider, "reference");
}

// The builder signed the bundle (docs/TRUST.md): it loads and runs under the signing
// key's public half as it does without.
TEST_F(Bundle, SignedBundleLoadsAndRunsUnderTrust) {
  ASSERT_TRUE(fs::exists(copy_ + "/manifest.sig"));
  BundleLoadOptions options;
  options.model_path = model_;
  options.trusted_keys = std::make_shared<const TrustedKeys>(TrustedKeys::load({root_ + "/key.pub.pem"}));
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(KernelBundle::load(copy_, options)));
  Session with_bundle(import_onnx(model_), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model_), {}, SessionOptions{optimize_graph});
  const Tensor x = random_tensor({DType::f32, {3, 8}}, 6);
  const Tensor got = with_bundle.run({{"x", x}}).at("y");
  const Tensor want = reference.run({{"x", x}}).at("y");
  for (int64_t i = 0; i < got.elements(); ++i) EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4);
  for (const Placement& p : with_bundle.placements()) EXPECT_EQ(p.provider, "bundle") << p.node;
}

// Sets NEE_MAX_ISA for one scope.
class IsaCap {
 public:
  explicit IsaCap(const std::string& level) { setenv(kMaxIsaVariable, level.c_str(), 1); }
  ~IsaCap() { unsetenv(kMaxIsaVariable); }
};

// The cap makes this machine pick as a lesser CPU would: the lowest level's kernels run,
// and compute what the reference does.
TEST_F(Bundle, CapRunsTheLowerLevelsKernels) {
  if (low() == high()) GTEST_SKIP() << "this CPU runs one ISA level only (" << high() << ")";
  const IsaCap cap(low());
  BundleLoadOptions options;
  options.model_path = model_;
  const auto bundle = KernelBundle::load(copy_, options);
  EXPECT_EQ(bundle->kernels_by_level(), (std::map<std::string, int>{{low(), 3}}));
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(model_), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model_), {}, SessionOptions{optimize_graph});
  const Tensor x = random_tensor({DType::f32, {3, 8}}, 5);
  const Tensor got = with_bundle.run({{"x", x}}).at("y");
  const Tensor want = reference.run({{"x", x}}).at("y");
  for (int64_t i = 0; i < got.elements(); ++i) EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4);
  for (const Placement& p : with_bundle.placements()) {
    EXPECT_EQ(p.kernel.substr(p.kernel.size() - low().size()), low()) << p.kernel;
  }
}

// The same choice through the load options, as nee-run --each-isa makes it per session.
TEST_F(Bundle, LoadOptionCapsTheLevel) {
  if (low() == high()) GTEST_SKIP() << "this CPU runs one ISA level only (" << high() << ")";
  BundleLoadOptions options;
  options.model_path = model_;
  options.max_isa = low();
  EXPECT_EQ(KernelBundle::load(copy_, options)->kernels_by_level(), (std::map<std::string, int>{{low(), 3}}));
  options.max_isa = "avx1024";
  EXPECT_HAS(load_error(options), "unknown ISA level 'avx1024'");
}

// A kernel tuned at a lower level only runs from that level; the others stay at the top.
TEST_F(Bundle, TunedKernelOfALowerLevelIsPreferred) {
  if (low() == high()) GTEST_SKIP() << "this CPU runs one ISA level only (" << high() << ")";
  auto j = manifest_json();
  j["variants"][0]["kernels"][1]["source"] = "tuned";
  j["variants"][0]["kernels"][1]["median_us"] = 3.5;
  save_manifest(j);
  BundleLoadOptions options;
  options.model_path = model_;
  EXPECT_EQ(KernelBundle::load(copy_, options)->kernels_by_level(),
            (std::map<std::string, int>{{low(), 1}, {high(), 2}}));
}

// A GPU bundle is mostly built where its GPU is not (pack here, nee-measure --batch on
// the GPU's machine, db import-results here): it takes the records of the device that
// measured its workloads, which is not this machine.
TEST_F(Bundle, GpuBundleTakesTheRecordsOfTheDeviceThatMeasuredThem) {
  TuningDatabase db(root_ + "/gpu-records.db");
  Target measured = host_target(TargetKind::cuda);
  measured.device.device = "NVIDIA H200 (sm_90)";
  const Workload& w = workloads_.at(0);
  const auto space = make_schedule_space(w, measured);
  ScheduleConfig picked = space->default_config();
  picked.knobs.at("unroll_k") = 1;
  ASSERT_EQ(space->check(picked), "");
  ASSERT_FALSE(picked == space->default_config());
  TuningRecord r;
  r.workload = w;
  r.target = measured;
  r.config = picked;
  r.result.status = MeasureStatus::ok;
  r.result.median_us = r.result.min_us = 4.0;
  r.result.repeats = 5;
  r.strategy = "evolutionary";
  const int64_t id = db.add_record(r);
  db.set_confirmed_us(id, 4.0);  // a search's pick ranks above the default once confirmed

  BundleRequest request;
  request.workloads = workloads_;
  request.target = host_target(TargetKind::cuda);
  request.model_path = model_;
  request.output_dir = root_ + "/gpu-bundle";
  const BundleManifest m = build_bundle(&db, request);
  ASSERT_EQ(m.variants.size(), 1u);
  const auto& kernels = m.variants[0].kernels;
  const auto entry = std::find_if(kernels.begin(), kernels.end(),
                                  [&](const BundleKernelEntry& e) { return e.workload.key() == w.key(); });
  ASSERT_NE(entry, kernels.end());
  EXPECT_EQ(entry->source, "tuned");
  EXPECT_EQ(entry->record_id, id);
  EXPECT_TRUE(entry->schedule == picked);
  EXPECT_EQ(std::count_if(kernels.begin(), kernels.end(), [](const BundleKernelEntry& e) { return e.source == "tuned"; }),
            1);
}

TEST_F(Bundle, NoVariantThisCpuRunsIsRefused) {
  if (low() == high()) GTEST_SKIP() << "this CPU runs one ISA level only (" << high() << ")";
  auto j = manifest_json();
  j["variants"].erase(0);
  save_manifest(j);
  const std::string top = high();
  const IsaCap cap(low());
  const std::string e = load_error();
  EXPECT_HAS(e, "holds kernels for " + top + " (above the cap)");
  EXPECT_HAS(e, "NEE_MAX_ISA=" + low());
  EXPECT_HAS(e, "runs " + low());
}

TEST_F(Bundle, BundleForAnotherArchitectureIsRefused) {
  auto j = manifest_json();
  const IsaLevel& arm = isa_level_named("arm64");
  j["variants"] = nlohmann::json::array({j["variants"][0]});
  j["variants"][0]["isa"] = arm.name;
  j["variants"][0]["halide"] = arm.halide;
  save_manifest(j);
  const std::string e = load_error();
  EXPECT_HAS(e, "holds kernels for arm64 (for arm-64)");
  EXPECT_HAS(e, "this CPU (x86-64) runs " + low());
}

TEST(BundleIsaLevels, IsaOptionNamesLevels) {
  std::vector<std::string> all;
  for (const IsaLevel* l : host_isa_levels()) all.push_back(l->name);
  EXPECT_EQ(bundle_isa_levels(""), all);
  EXPECT_EQ(bundle_isa_levels("all"), all);
  EXPECT_EQ(bundle_isa_levels("host"), std::vector<std::string>{host_isa_level().name});
  EXPECT_EQ(bundle_isa_levels("avx2,arm64"), (std::vector<std::string>{"avx2", "arm64"}));
  // A portable floor and this machine's own level, once each when they are one.
  const std::string floor = host_isa_levels().front()->name;
  std::vector<std::string> floor_and_host = {floor};
  if (host_isa_level().name != floor) floor_and_host.push_back(host_isa_level().name);
  EXPECT_EQ(bundle_isa_levels(floor + ",host"), floor_and_host);
  EXPECT_THROW(bundle_isa_levels("avx2,avx3"), Error);
}

TEST_F(Bundle, UnknownLevelIsRefused) {
  auto j = manifest_json();
  j["variants"][0]["isa"] = "avx9000";
  save_manifest(j);
  const std::string e = load_error();
  EXPECT_HAS(e, "unknown ISA level 'avx9000'");
  EXPECT_HAS(e, "avx512_skylake");
}

TEST_F(Bundle, VariantCompiledForAnotherLevelIsRefused) {
  auto j = manifest_json();
  j["variants"][0]["halide"] = isa_level_named("avx512_sapphirerapids").halide;
  save_manifest(j);
  EXPECT_HAS(load_error(), "which is not that level's target");
}

TEST_F(Bundle, ProfileShowsTheBundleKernelsAndTheirFlops) {
  BundleLoadOptions options;
  options.model_path = model_;
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(KernelBundle::load(copy_, options)));
  Session session(import_onnx(model_), std::move(providers), SessionOptions{optimize_graph});
  session.prepare();
  RunProfile profile = start_profile(session);
  const auto start = std::chrono::steady_clock::now();
  session.run({{"x", random_tensor({DType::f32, {3, 8}}, 4)}});
  record_run(profile, session, start, std::chrono::steady_clock::now());

  const FlopAccount account = account_flops(profile);
  EXPECT_EQ(account.total, 2.0 * 3 * (16 * 8 + 16 * 16 + 4 * 16));  // fc1, fc2, head
  EXPECT_EQ(account.share("bundle"), 1.0);
  EXPECT_TRUE(account.reference_nodes.empty());

  const nlohmann::json trace = chrome_trace(profile);
  std::vector<std::string> names;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") == "run") continue;
    names.push_back(e.at("name"));
    EXPECT_EQ(e.at("args").at("provider"), "bundle");
    EXPECT_EQ(e.at("args").at("kernel").get<std::string>().rfind("nee_", 0), 0u) << e.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fc1", "fc2", "head"}));
}

// The kernel pool takes the size asked for; 0 follows the CPUs this process may use
// (confined here to one), where Halide's own default counts all online.
TEST_F(Bundle, ThreadPoolIsSizedAsAskedAndReportedBack) {
  BundleLoadOptions options;
  options.model_path = model_;
  for (int threads : {1, 3}) {
    options.threads = threads;
    EXPECT_EQ(KernelBundle::load(copy_, options)->threads(), threads);
  }
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &all)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  options.threads = 0;
  const int confined = KernelBundle::load(copy_, options)->threads();
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(confined, 1);
  EXPECT_EQ(KernelBundle::load(copy_, options)->threads(), CPU_COUNT(&all));

  options.threads = -2;
  EXPECT_HAS(load_error(options), "thread count must be 0 (all cores) or more, not -2");
  options.threads = 1;
  options.spin_us = -5;
  EXPECT_HAS(load_error(options), "spin time must be 0 microseconds or more, not -5");
}

TEST_F(Bundle, OtherNeeVersionIsRefused) {
  auto j = manifest_json();
  j["nee_version"] = "0.0.0-elsewhere";
  save_manifest(j);
  const std::string e = load_error();
  EXPECT_HAS(e, "rebuild");
  EXPECT_HAS(e, "0.0.0-elsewhere");
}

TEST_F(Bundle, OtherAbiVersionIsRefused) {
  auto j = manifest_json();
  j["abi_version"] = 99;
  save_manifest(j);
  const std::string e = load_error();
  EXPECT_HAS(e, "ABI 99");
  EXPECT_HAS(e, "rebuild");
}

TEST_F(Bundle, OtherTargetKindIsRefused) {
  BundleLoadOptions options;
  options.expected_kind = TargetKind::opencl;
  const std::string e = load_error(options);
  EXPECT_HAS(e, "cpu target");
  EXPECT_HAS(e, "opencl run");
}

TEST_F(Bundle, OtherModelIsRefused) {
  const std::string other = copy_ + "-other.onnx";
  write_file(other, mlp_bytes(77));  // same graph, other weights
  BundleLoadOptions options;
  options.model_path = other;
  const std::string e = load_error(options);
  fs::remove(other);
  EXPECT_HAS(e, "built for model");
  EXPECT_HAS(e, "mlp.onnx");
}

TEST_F(Bundle, ChangedLibraryIsRefused) {
  {
    std::ofstream out(copy_ + high_library(), std::ios::binary | std::ios::app);
    out << '\0';
  }
  const std::string e = load_error();
  EXPECT_HAS(e, "changed");
  EXPECT_HAS(e, high_library().substr(1));
}

TEST_F(Bundle, MissingKernelSymbolIsRefused) {
  auto j = manifest_json();
  j["variants"].back()["kernels"][1]["symbol"] = "nee_no_such_kernel";
  save_manifest(j);
  const std::string e = load_error();
  EXPECT_HAS(e, "nee_no_such_kernel");
  EXPECT_HAS(e, "missing from " + high_library().substr(1));
}

TEST_F(Bundle, SwappedKernelWorkloadsAreRefused) {
  // Entry 0 claims kernel 1's symbol: the library's table says it computes another workload.
  auto j = manifest_json();
  nlohmann::json& kernels = j["variants"].back()["kernels"];
  const auto s0 = kernels[0]["symbol"], s1 = kernels[1]["symbol"];
  kernels[0]["symbol"] = s1;
  kernels[1]["symbol"] = s0;
  save_manifest(j);
  EXPECT_HAS(load_error(), "another workload");
}

TEST_F(Bundle, MissingManifestIsRefused) {
  fs::remove(copy_ + "/manifest.json");
  EXPECT_HAS(load_error(), "not a NEE bundle");
}

TEST_F(Bundle, MalformedManifestIsRefused) {
  write_file(copy_ + "/manifest.json", "{\"format\": \"nee-bundle\", \"nee_version\": ");
  const std::string e = load_error();
  EXPECT_HAS(e, "malformed");
  EXPECT_HAS(e, "manifest.json");
}

TEST_F(Bundle, ForeignJsonIsRefused) {
  write_file(copy_ + "/manifest.json", "{\"name\": \"some other tool\"}");
  EXPECT_HAS(load_error(), "not a NEE bundle");
}

TEST_F(Bundle, MissingLibraryIsRefused) {
  fs::remove(copy_ + high_library());
  EXPECT_HAS(load_error(), "no kernel library");
}

}  // namespace
}  // namespace nee
