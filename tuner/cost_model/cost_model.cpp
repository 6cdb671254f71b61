#include "tuner/cost_model/cost_model.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "core/workload_speed.h"

namespace nee {

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

void check(int rc, const char* doing) {
  if (rc != 0) throw Error(fmt::format("cost model: {} failed: {}", doing, XGBGetLastError()));
}

// Matmul dims: batch (product of leading output dims), M, N, K.
struct Dims {
  double batch = 1, m = 1, n = 1, k = 1;
};

Dims dims_of(const Workload& w) {
  Dims d;
  const auto& out = w.output.shape;
  if (out.size() >= 1) d.n = static_cast<double>(out.back());
  if (out.size() >= 2) d.m = static_cast<double>(out[out.size() - 2]);
  const double elements = static_cast<double>(w.output.elements());
  d.batch = elements / (d.m * d.n);
  // flops() is 2 * elements * K for matmul; other families count one op per element.
  d.k = family_of(w).id == FamilyId::matmul ? w.flops() / (2.0 * elements) : 1.0;
  return d;
}

// log2 that keeps 0 finite (knob values include 0).
float log2p1(double v) { return static_cast<float>(std::log2(1.0 + std::max(0.0, v))); }

class DMatrix {
 public:
  DMatrix(const std::vector<float>& data, size_t rows, size_t cols) {
    check(XGDMatrixCreateFromMat(data.data(), rows, cols, kMissing, &handle_), "XGDMatrixCreateFromMat");
  }
  ~DMatrix() { XGDMatrixFree(handle_); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

}  // namespace

CostFeatures::CostFeatures(std::vector<std::string> knob_names, const DeviceFingerprint& device)
    : knob_names_(std::move(knob_names)), device_(device) {}

size_t CostFeatures::size() const { return 2 * knob_names_.size() + 4 + 10; }

std::vector<float> CostFeatures::operator()(const Workload& workload, const ScheduleConfig& config) const {
  std::vector<float> f;
  f.reserve(size());
  const auto knob = [&](const std::string& name) -> std::optional<double> {
    const auto it = config.knobs.find(name);
    if (it == config.knobs.end()) return std::nullopt;
    return static_cast<double>(it->second);
  };
  for (const std::string& name : knob_names_) {
    const auto v = knob(name);
    f.push_back(v ? static_cast<float>(*v) : kMissing);
    f.push_back(v ? log2p1(*v) : kMissing);
  }
  const Dims d = dims_of(workload);
  for (double v : {d.batch, d.m, d.n, d.k}) f.push_back(log2p1(v));

  // Derived quantities of the CPU matmul space (schedules/matmul_cpu_space.cpp).
  const auto vec = knob("vec"), nr_vecs = knob("nr_vecs"), mr = knob("mr"), mc_blocks = knob("mc_blocks"),
             nc_panels = knob("nc_panels"), kc = knob("kc");
  if (vec && nr_vecs && mr && mc_blocks && nc_panels && kc) {
    const double nr = *vec * *nr_vecs;
    const double mc = *mr * *mc_blocks, nc = nr * *nc_panels;
    const double kc_eff = *kc > 0 ? std::min(*kc, d.k) : d.k;
    const double tiles = std::ceil(d.m / mc) * std::ceil(d.n / nc) * d.batch;
    const double cores = std::max(1, device_.cores);
    const double l2 = device_.l2_bytes > 0 ? static_cast<double>(device_.l2_bytes) : 1024.0 * 1024.0;
    const double b_panel_bytes = 4.0 * kc_eff * nc, a_block_bytes = 4.0 * kc_eff * mc;
    for (double v : {std::log2(*mr * nr), std::log2(mc), std::log2(nc), std::min(mc, d.m) / d.m, std::min(nc, d.n) / d.n,
                     kc_eff / d.k, std::log2(tiles), tiles / cores, b_panel_bytes / l2, a_block_bytes / l2}) {
      f.push_back(static_cast<float>(v));
    }
  } else {
    f.insert(f.end(), 10, kMissing);
  }
  return f;
}

CostModel::CostModel(CostFeatures features, int rounds, int max_depth)
    : features_(std::move(features)), rounds_(rounds), max_depth_(max_depth) {}

CostModel::~CostModel() { free_booster(); }

void CostModel::free_booster() {
  if (booster_) XGBoosterFree(booster_);
  booster_ = nullptr;
}

void CostModel::train(const std::vector<CostSample>& samples) {
  std::vector<float> data, labels;
  for (const CostSample& s : samples) {
    if (!(s.median_us > 0)) continue;
    const std::vector<float> row = features_(s.workload, s.config);
    data.insert(data.end(), row.begin(), row.end());
    // log(GFLOP/s), or log(GB/s) for a copy: higher is faster, comparable across shapes.
    labels.push_back(static_cast<float>(std::log(speed(s.workload, s.median_us))));
  }
  if (labels.empty()) throw Error("cost model: no samples with a positive time to train on");
  free_booster();
  DMatrix train(data, labels.size(), features_.size());
  check(XGDMatrixSetFloatInfo(train.handle(), "label", labels.data(), labels.size()), "setting labels");
  const DMatrixHandle sets[] = {train.handle()};
  BoosterHandle booster = nullptr;
  check(XGBoosterCreate(sets, 1, &booster), "XGBoosterCreate");
  booster_ = booster;
  const std::string depth = std::to_string(max_depth_);
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"max_depth", depth.c_str()},
                                    {"eta", "0.1"},
                                    {"subsample", "1"},
                                    {"min_child_weight", "1"},
                                    {"objective", "reg:squarederror"},
                                    // Tens to hundreds of rows: threads would cost more than they save,
                                    // and the tuner's compiles share the cores.
                                    {"nthread", "1"},
                                    {"seed", "0"},
                                    {"verbosity", "0"}}) {
    check(XGBoosterSetParam(booster_, name, value), "XGBoosterSetParam");
  }
  for (int i = 0; i < rounds_; ++i) check(XGBoosterUpdateOneIter(booster_, i, train.handle()), "XGBoosterUpdateOneIter");
}

std::vector<double> CostModel::predict_us(const Workload& workload, const std::vector<ScheduleConfig>& configs) const {
  if (!booster_) throw Error("cost model: predict before train");
  if (configs.empty()) return {};
  std::vector<float> data;
  for (const ScheduleConfig& c : configs) {
    const std::vector<float> row = features_(workload, c);
    data.insert(data.end(), row.begin(), row.end());
  }
  DMatrix m(data, configs.size(), features_.size());
  bst_ulong length = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster_, m.handle(), 0, 0, 0, &length, &out), "XGBoosterPredict");
  std::vector<double> us;
  us.reserve(length);
  for (bst_ulong i = 0; i < length; ++i) us.push_back(speed_work(workload) / (std::exp(out[i]) * 1e3));
  return us;
}

}  // namespace nee
