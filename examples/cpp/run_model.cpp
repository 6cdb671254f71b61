// Runs a one-input, one-output ONNX model with a NEE kernel bundle through NEE's C++ API,
// with 2 kernel threads and a per-node profile.
//
//   run_model_cpp MODEL BUNDLE INPUT.f32 EXPECTED.f32
//
// The files are as for run_model_c. Exits 0 when the output matches EXPECTED within 1e-4
// of its largest magnitude.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <nee/nee.hpp>

namespace {

std::vector<float> read_floats(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot open ") + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> floats(bytes.size() / sizeof(float));
  std::copy(bytes.begin(), bytes.begin() + floats.size() * sizeof(float), reinterpret_cast<char*>(floats.data()));
  return floats;
}

std::vector<int64_t> concrete_dims(const nee::api::ValueInfo& info) {
  std::vector<int64_t> dims = info.dims;
  for (int64_t& d : dims) d = d < 0 ? 1 : d;
  return dims;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s MODEL BUNDLE INPUT.f32 EXPECTED.f32\n", argv[0]);
    return 2;
  }
  try {
    nee::api::Env env(nee::api::EnvOptions().threads(2));
    nee::api::Session session(env, argv[1], nee::api::SessionOptions().bundle(argv[2]).profiling(true));
    const nee::api::ValueInfo input_info = session.inputs().at(0);
    std::vector<float> pixels = read_floats(argv[3]);
    const std::vector<float> expected = read_floats(argv[4]);
    nee::api::Tensor input = nee::api::Tensor::wrap(pixels, concrete_dims(input_info));
    std::vector<nee::api::Tensor> outputs = session.run({{input_info.name.c_str(), &input}});
    const nee::api::Span<float> got = outputs.at(0).data<float>();
    if (got.size() != expected.size()) {
      std::fprintf(stderr, "the output has %zu floats, the expected file %zu\n", got.size(), expected.size());
      return 1;
    }
    double peak = 0, error = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      peak = std::max(peak, std::fabs(double(expected[i])));
      error = std::max(error, std::fabs(double(got[i]) - expected[i]));
    }
    const std::vector<nee::api::NodeTime> profile = session.profile();
    size_t in_bundle = 0;
    for (const nee::api::NodeTime& t : profile) in_bundle += t.provider == "bundle";
    std::printf("NEE %s: %zu nodes, %zu in bundle kernels; max |error| %.3g of the largest expected value: %s\n",
                nee::api::version().c_str(), profile.size(), in_bundle, peak > 0 ? error / peak : error,
                error <= 1e-4 * peak ? "ok" : "MISMATCH");
    return error <= 1e-4 * peak && in_bundle > 0 ? 0 : 1;
  } catch (const nee::api::Exception& e) {
    std::fprintf(stderr, "NEE error %d: %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
}
