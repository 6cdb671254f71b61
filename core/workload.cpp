#include "core/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"

namespace nee {

int64_t TensorType::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorType::to_string() const {
  return fmt::format("{}[{}]", nee::to_string(dtype), fmt::join(shape, ","));
}

std::string Workload::key() const {
  std::string k = op + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) k += ",";
    k += inputs[i].to_string();
  }
  k += ")->" + output.to_string() + attrs.dump();
  return k;
}

std::string Workload::hash() const { return sha256_hex(key()).substr(0, 16); }

double Workload::flops() const { return family_of(*this).flops(*this); }

static nlohmann::json tensor_to_json(const TensorType& t) {
  return {{"dtype", nee::to_string(t.dtype)}, {"shape", t.shape}};
}

static TensorType tensor_from_json(const nlohmann::json& j) {
  TensorType t;
  t.dtype = dtype_from_string(j.at("dtype").get<std::string>());
  t.shape = j.at("shape").get<std::vector<int64_t>>();
  return t;
}

nlohmann::json Workload::to_json() const {
  nlohmann::json in = nlohmann::json::array();
  for (const auto& t : inputs) in.push_back(tensor_to_json(t));
  return {{"op", op}, {"attrs", attrs}, {"inputs", in}, {"output", tensor_to_json(output)}};
}

Workload Workload::from_json(const nlohmann::json& j) {
  try {
    Workload w;
    w.op = j.at("op").get<std::string>();
    w.attrs = j.at("attrs");
    for (const auto& t : j.at("inputs")) w.inputs.push_back(tensor_from_json(t));
    w.output = tensor_from_json(j.at("output"));
    return w;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed workload description: ") + e.what());
  }
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(fmt::format("shapes [{}] and [{}] do not broadcast", fmt::join(a, ","),
                              fmt::join(b, ",")));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Workload make_matmul_workload(const TensorType& a, const TensorType& b, const TensorType* c,
                              const MatmulAttrs& attrs) {
  for (const TensorType* t : {&a, &b, c}) {
    if (t && t->dtype != DType::f32) {
      throw Error("matmul kernels take f32 tensors, got " + t->to_string());
    }
  }
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    throw Error(fmt::format("matmul kernels need rank >= 2 operands, got {} and {}",
                            a.to_string(), b.to_string()));
  }
  if ((attrs.trans_a || attrs.trans_b) && (a.shape.size() != 2 || b.shape.size() != 2)) {
    throw Error("transposed operands are supported at rank 2 only (Gemm)");
  }
  const size_t ra = a.shape.size(), rb = b.shape.size();
  const int64_t m = attrs.trans_a ? a.shape[ra - 1] : a.shape[ra - 2];
  const int64_t ka = attrs.trans_a ? a.shape[ra - 2] : a.shape[ra - 1];
  const int64_t kb = attrs.trans_b ? b.shape[rb - 1] : b.shape[rb - 2];
  const int64_t n = attrs.trans_b ? b.shape[rb - 2] : b.shape[rb - 1];
  if (ka != kb) {
    throw Error(fmt::format("matmul inner dimensions differ: {} x {} (K {} vs {})", a.to_string(),
                            b.to_string(), ka, kb));
  }
  for (const TensorType* t : {&a, &b, c}) {
    if (!t) continue;
    for (int64_t d : t->shape) {
      if (d <= 0) throw Error("matmul operand " + t->to_string() + " has an empty dimension");
    }
  }
  std::vector<int64_t> batch = broadcast_shapes(
      std::vector<int64_t>(a.shape.begin(), a.shape.end() - 2),
      std::vector<int64_t>(b.shape.begin(), b.shape.end() - 2));
  std::vector<int64_t> out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  if (c) {
    const std::vector<int64_t> with_c = broadcast_shapes(out_shape, c->shape);
    if (with_c != out_shape) {
      throw Error(fmt::format("bias {} does not broadcast to the product's shape [{}]",
                              c->to_string(), fmt::join(out_shape, ",")));
    }
  }
  if (attrs.relu && attrs.gelu) throw Error("a matmul epilogue applies Relu or GELU, not both");
  Workload w;
  w.op = "matmul";
  w.attrs = {{"trans_a", attrs.trans_a ? 1 : 0}, {"trans_b", attrs.trans_b ? 1 : 0},
             {"alpha", attrs.alpha},           {"beta", c ? attrs.beta : 0.0},
             {"relu", attrs.relu ? 1 : 0},     {"bias", c ? 1 : 0}};
  if (attrs.gelu) w.attrs["gelu"] = 1;
  w.inputs = {a, b};
  if (c) w.inputs.push_back(*c);
  w.output = TensorType{DType::f32, out_shape};
  return w;
}

MatmulAttrs matmul_attrs(const Workload& w) {
  MatmulAttrs a;
  a.trans_a = w.attrs.at("trans_a").get<int>() != 0;
  a.trans_b = w.attrs.at("trans_b").get<int>() != 0;
  a.alpha = w.attrs.at("alpha").get<double>();
  a.beta = w.attrs.at("beta").get<double>();
  a.relu = w.attrs.at("relu").get<int>() != 0;
  a.gelu = w.attrs.value("gelu", 0) != 0;
  return a;
}

bool matmul_has_bias(const Workload& w) { return w.attrs.at("bias").get<int>() != 0; }

Workload matmul_workload_from_shape(const std::string& shape) {
  const std::optional<std::vector<int64_t>> parsed = parse_integer_list(shape);
  if (!parsed || std::any_of(parsed->begin(), parsed->end(), [](int64_t v) { return v <= 0; })) {
    throw Error("bad matmul shape '" + shape + "': expected MxKxN or BxMxKxN with positive sizes");
  }
  const std::vector<int64_t>& dims = *parsed;
  if (dims.size() != 3 && dims.size() != 4) {
    throw Error("bad matmul shape '" + shape + "': expected MxKxN or BxMxKxN");
  }
  std::vector<int64_t> batch(dims.begin(), dims.end() - 3);
  const int64_t m = dims[dims.size() - 3], k = dims[dims.size() - 2], n = dims.back();
  TensorType a{DType::f32, batch}, b{DType::f32, batch};
  a.shape.insert(a.shape.end(), {m, k});
  b.shape.insert(b.shape.end(), {k, n});
  return make_matmul_workload(a, b, nullptr, MatmulAttrs{});
}

Family matmul_family() {
  return {FamilyId::matmul,
          "matmul",
          [](const Workload& w) {
            const MatmulAttrs a = matmul_attrs(w);
            const auto& sa = w.inputs[0].shape;
            const int64_t k = a.trans_a ? sa[sa.size() - 2] : sa.back();
            return 2.0 * static_cast<double>(w.output.elements()) * static_cast<double>(k);
          },
          [](const Workload& w) {
            const auto& sa = w.inputs[0].shape;
            return matmul_attrs(w).trans_a ? sa[sa.size() - 2] : sa.back();
          },
          SpeedUnit::gflops,
          matmul_workload_from_shape,
          "MxKxN or BxMxKxN",
          {"alpha", "beta", "bias", "relu", "gelu"},
          2};
}

}  // namespace nee
