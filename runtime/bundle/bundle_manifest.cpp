#include "runtime/bundle/bundle_manifest.h"

#include <fstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/json_numbers.h"
#include "core/version.h"
#include "runtime/bundle/bundle_folder.h"

namespace nee {

static constexpr const char* kFormat = "nee-bundle";

static nlohmann::json kernel_json(const BundleKernelEntry& k) {
  nlohmann::json e = {{"key", k.workload.key()}, {"workload", k.workload.to_json()}, {"symbol", k.symbol},
                      {"source", k.source},      {"schedule", k.schedule.to_json()}};
  e["record_id"] = k.record_id ? nlohmann::json(*k.record_id) : nlohmann::json();
  e["median_us"] = k.median_us ? nlohmann::json(*k.median_us) : nlohmann::json();
  return e;
}

static BundleKernelEntry kernel_from_json(const nlohmann::json& e) {
  BundleKernelEntry k;
  k.workload = Workload::from_json(e.at("workload"));
  if (k.workload.key() != e.at("key").get<std::string>()) {
    throw Error("bundle manifest entry '" + e.at("symbol").get<std::string>() + "' has a key that does not match its workload");
  }
  k.symbol = e.at("symbol").get<std::string>();
  k.source = e.at("source").get<std::string>();
  k.schedule = ScheduleConfig::from_json(e.at("schedule"));
  if (!e.at("record_id").is_null()) k.record_id = json_int(e.at("record_id"), "record_id");
  if (!e.at("median_us").is_null()) k.median_us = json_double(e.at("median_us"), "median_us");
  return k;
}

nlohmann::json BundleManifest::to_json() const {
  nlohmann::json variants_json = nlohmann::json::array();
  for (const BundleVariant& v : variants) {
    nlohmann::json kernels_json = nlohmann::json::array();
    for (const BundleKernelEntry& k : v.kernels) kernels_json.push_back(kernel_json(k));
    variants_json.push_back({{"isa", v.isa},
                             {"halide", v.halide},
                             {"library", {{"file", v.library_file}, {"sha256", v.library_sha256}}},
                             {"kernels", kernels_json}});
  }
  return {{"format", kFormat},
          {"nee_version", nee_version},
          {"abi_version", abi_version},
          {"target", target.to_json()},
          {"model", {{"file", model_file}, {"sha256", model_sha256}}},
          {"graph",
           {{"block_activations", graph.block_activations},
            {"fold_matmul_batch", graph.fold_matmul_batch},
            {"winograd", graph.winograd},
            {"block_pools", graph.block_pools},
            {"block_elementwise", graph.block_elementwise},
            {"block_grouped_convs", graph.block_grouped_convs},
            {"pack_matmul_weights", graph.pack_matmul_weights},
            {"pad_matmul_panels", graph.pad_matmul_panels},
            {"fuse_rms_norms", graph.fuse_rms_norms},
            {"remove_same_type_casts", graph.remove_same_type_casts},
            {"fold_operand_scales", graph.fold_operand_scales},
            {"split_matmul_columns", graph.split_matmul_columns},
            {"fuse_attention", graph.fuse_attention},
            {"pad_channels", graph.pad_channels},
            {"fold_channel_gates", graph.fold_channel_gates},
            {"widen_conv_groups", graph.widen_conv_groups},
            {"merge_conv_groups", graph.merge_conv_groups},
            {"fuse_group_norms", graph.fuse_group_norms},
            {"fold_pads_into_convs", graph.fold_pads_into_convs},
            {"split_conv_channels", graph.split_conv_channels},
            {"elementwise_over_rows", graph.elementwise_over_rows},
            {"block_pads", graph.block_pads},
            {"lower_1d_conv_transposes", graph.lower_1d_conv_transposes},
            {"group_norms_over_rows", graph.group_norms_over_rows},
            {"drop_padding_taps", graph.drop_padding_taps},
            {"block_resizes", graph.block_resizes},
            {"convs_read_frames", graph.convs_read_frames},
            {"record_group_widths", graph.record_group_widths},
            {"means_as_global_pools", graph.means_as_global_pools},
            {"winograd_weight_bound", graph.winograd_weight_bound},
            {"block_global_pool_inputs", graph.block_global_pool_inputs},
            {"quantize_matmul_weights", graph.quantize_matmul_weights},
            {"quantize_matmul_activations", graph.quantize_matmul_activations},
            {"quantize_conv_activations", graph.quantize_conv_activations},
            {"requantize_conv_outputs", graph.requantize_conv_outputs},
            {"convs_read_shared_pairs", graph.convs_read_shared_pairs},
            {"layouts_as_transposes", graph.layouts_as_transposes},
            {"compose_transposes", graph.compose_transposes},
            {"remove_whole_slices", graph.remove_whole_slices},
            {"batch_norms_of_matrices", graph.batch_norms_of_matrices},
            {"fold_transposes_into_products", graph.fold_transposes_into_products},
            {"fold_batch_norms_into_products", graph.fold_batch_norms_into_products},
            {"group_norm_affine_into_elementwise", graph.group_norm_affine_into_elementwise},
            {"fuse_attention_over_heads", graph.fuse_attention_over_heads},
            {"attention_through_head_transposes", graph.attention_through_head_transposes},
            {"quantize_pairs_as_elementwise", graph.quantize_pairs_as_elementwise}}},
          {"variants", variants_json}};
}

BundleManifest BundleManifest::from_json(const nlohmann::json& j) {
  if (j.value("format", "") != kFormat) throw Error("not a NEE bundle manifest (format is not 'nee-bundle')");
  BundleManifest m;
  m.nee_version = j.at("nee_version").get<std::string>();
  m.abi_version = json_int32(j.at("abi_version"), "abi_version");
  // Checked before the rest is read: an older manifest has another layout.
  if (m.abi_version != kBundleAbiVersion || m.nee_version != kVersion) {
    throw Error(fmt::format("built by NEE {} (bundle ABI {}); this runtime is NEE {} (ABI {}): rebuild the bundle",
                            m.nee_version, m.abi_version, kVersion, kBundleAbiVersion));
  }
  m.target = Target::from_json(j.at("target"));
  m.model_file = j.at("model").value("file", "");
  m.model_sha256 = j.at("model").value("sha256", "");
  m.graph.block_activations = j.at("graph").at("block_activations").get<bool>();
  m.graph.fold_matmul_batch = j.at("graph").at("fold_matmul_batch").get<bool>();
  m.graph.winograd = j.at("graph").at("winograd").get<bool>();
  m.graph.block_pools = j.at("graph").value("block_pools", false);
  m.graph.block_elementwise = j.at("graph").value("block_elementwise", false);
  m.graph.block_grouped_convs = j.at("graph").value("block_grouped_convs", false);
  m.graph.pack_matmul_weights = j.at("graph").value("pack_matmul_weights", false);
  m.graph.pad_matmul_panels = j.at("graph").value("pad_matmul_panels", false);
  m.graph.fuse_rms_norms = j.at("graph").value("fuse_rms_norms", false);
  m.graph.remove_same_type_casts = j.at("graph").value("remove_same_type_casts", false);
  m.graph.fold_operand_scales = j.at("graph").value("fold_operand_scales", false);
  m.graph.split_matmul_columns = j.at("graph").value("split_matmul_columns", false);
  m.graph.fuse_attention = j.at("graph").value("fuse_attention", false);
  m.graph.pad_channels = j.at("graph").value("pad_channels", false);
  m.graph.fold_channel_gates = j.at("graph").value("fold_channel_gates", false);
  m.graph.widen_conv_groups = j.at("graph").value("widen_conv_groups", int64_t{0});
  m.graph.merge_conv_groups = j.at("graph").value("merge_conv_groups", false);
  m.graph.fuse_group_norms = j.at("graph").value("fuse_group_norms", false);
  m.graph.fold_pads_into_convs = j.at("graph").value("fold_pads_into_convs", false);
  m.graph.split_conv_channels = j.at("graph").value("split_conv_channels", false);
  m.graph.elementwise_over_rows = j.at("graph").value("elementwise_over_rows", false);
  m.graph.block_pads = j.at("graph").value("block_pads", false);
  m.graph.lower_1d_conv_transposes = j.at("graph").value("lower_1d_conv_transposes", false);
  m.graph.group_norms_over_rows = j.at("graph").value("group_norms_over_rows", false);
  m.graph.drop_padding_taps = j.at("graph").value("drop_padding_taps", false);
  m.graph.block_resizes = j.at("graph").value("block_resizes", false);
  m.graph.convs_read_frames = j.at("graph").value("convs_read_frames", false);
  m.graph.record_group_widths = j.at("graph").value("record_group_widths", false);
  m.graph.means_as_global_pools = j.at("graph").value("means_as_global_pools", false);
  m.graph.winograd_weight_bound = j.at("graph").value("winograd_weight_bound", false);
  m.graph.block_global_pool_inputs = j.at("graph").value("block_global_pool_inputs", false);
  m.graph.quantize_matmul_weights = j.at("graph").value("quantize_matmul_weights", false);
  m.graph.quantize_matmul_activations = j.at("graph").value("quantize_matmul_activations", false);
  m.graph.quantize_conv_activations = j.at("graph").value("quantize_conv_activations", false);
  m.graph.requantize_conv_outputs = j.at("graph").value("requantize_conv_outputs", false);
  m.graph.convs_read_shared_pairs = j.at("graph").value("convs_read_shared_pairs", false);
  m.graph.layouts_as_transposes = j.at("graph").value("layouts_as_transposes", false);
  m.graph.compose_transposes = j.at("graph").value("compose_transposes", false);
  m.graph.remove_whole_slices = j.at("graph").value("remove_whole_slices", false);
  m.graph.batch_norms_of_matrices = j.at("graph").value("batch_norms_of_matrices", false);
  m.graph.fold_transposes_into_products = j.at("graph").value("fold_transposes_into_products", false);
  m.graph.fold_batch_norms_into_products = j.at("graph").value("fold_batch_norms_into_products", false);
  m.graph.group_norm_affine_into_elementwise = j.at("graph").value("group_norm_affine_into_elementwise", false);
  m.graph.fuse_attention_over_heads = j.at("graph").value("fuse_attention_over_heads", false);
  m.graph.attention_through_head_transposes = j.at("graph").value("attention_through_head_transposes", false);
  m.graph.quantize_pairs_as_elementwise = j.at("graph").value("quantize_pairs_as_elementwise", false);
  for (const auto& v : j.at("variants")) {
    BundleVariant variant;
    variant.isa = v.at("isa").get<std::string>();
    variant.halide = v.at("halide").get<std::string>();
    variant.library_file = v.at("library").at("file").get<std::string>();
    variant.library_sha256 = v.at("library").at("sha256").get<std::string>();
    const std::string& file = variant.library_file;
    if (file.empty() || file == "." || file == ".." || file.find_first_of(std::string("/\0", 2)) != std::string::npos) {
      throw Error("bundle library path must be a plain file name, not '" + file + "'");
    }
    if (variant.library_sha256.size() != 64 ||
        variant.library_sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw Error("the sha256 of " + file + " is not 64 lowercase hex digits: '" + variant.library_sha256 + "'");
    }
    for (const auto& e : v.at("kernels")) variant.kernels.push_back(kernel_from_json(e));
    m.variants.push_back(std::move(variant));
  }
  if (m.variants.empty()) throw Error("the manifest lists no kernel library");
  return m;
}

std::string BundleManifest::text() const { return to_json().dump(2) + "\n"; }

BundleManifest BundleManifest::parse(const std::string& text, const std::string& path) {
  try {
    return from_json(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& e) {
    throw Error("bundle manifest '" + path + "' is malformed: " + e.what());
  } catch (const Error& e) {
    throw Error("bundle manifest '" + path + "': " + e.what());
  }
}

BundleManifest BundleManifest::load(const std::string& bundle_dir) {
  const std::optional<std::string> text =
      BundleFolder(bundle_dir).read(kManifestFile, kMaxManifestBytes, "bundle manifest");
  if (!text) throw Error("'" + bundle_dir + "' is not a NEE bundle: no manifest.json");
  return parse(*text, bundle_dir + "/" + kManifestFile);
}

void BundleManifest::save(const std::string& bundle_dir) const {
  const std::string path = bundle_dir + "/" + kManifestFile;
  std::ofstream out(path, std::ios::binary);
  out << text();
  if (!out.flush()) throw Error("cannot write '" + path + "'");
}

}  // namespace nee
