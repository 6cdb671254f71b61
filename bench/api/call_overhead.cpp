// What NEE's C API costs per call over the internal session it wraps (issue 30 asks for
// under 5 us): one model run through nee::StagedSession::run, and through
// nee_session_run with the same input bytes and a caller-owned output buffer, in one
// process on the reference kernels, so that the difference is the API's own work
// (argument checks, name lookups, the output hand-over).
//   build/bench/api/nee-api-overhead [MODEL.onnx] [--benchmark_repetitions=N ...]
// Default model: the ONNX backend test's Relu of a 3x4x5 float tensor, a run of a few
// microseconds, so that the overhead is not lost in the kernel's time.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "nee/nee.h"
#include "runtime/passes/passes.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_io.h"

namespace {

std::string g_model = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";

// The model's inputs as random tensors (declared shapes, symbolic dims 1).
std::map<std::string, nee::Tensor> model_inputs(const nee::StagedModel& model) {
  std::map<std::string, nee::Tensor> inputs;
  uint64_t seed = 1;
  for (const nee::DeclaredValue& d : model.declared_inputs()) {
    std::vector<int64_t> shape;
    for (int64_t dim : d.dims) shape.push_back(dim < 0 ? 1 : dim);
    inputs[d.name] = nee::random_tensor({d.dtype.value_or(nee::DType::f32), shape}, seed++);
  }
  return inputs;
}

NeeDType c_dtype(nee::DType dtype) {
  switch (dtype) {
    case nee::DType::f32: return NEE_DTYPE_F32;
    case nee::DType::i64: return NEE_DTYPE_I64;
    case nee::DType::i32: return NEE_DTYPE_I32;
    case nee::DType::boolean: return NEE_DTYPE_BOOL;
    default:
      std::fprintf(stderr, "nee-api-overhead: give a model whose inputs are float, int64, int32 or bool\n");
      std::exit(2);
  }
}

void check(NeeStatus* status) {
  if (!status) return;
  std::fprintf(stderr, "nee-api-overhead: %s\n", nee_status_message(status));
  std::exit(1);
}

void InternalSession(benchmark::State& state) {
  const std::shared_ptr<const nee::StagedModel> model = nee::load_staged_onnx(g_model);
  nee::StagedSession session(model, [] { return std::vector<std::unique_ptr<nee::KernelProvider>>(); },
                             nee::SessionOptions{nee::optimize_graph});
  const std::map<std::string, nee::Tensor> inputs = model_inputs(*model);
  std::map<std::string, nee::Tensor> into;
  for (const auto& [name, tensor] : session.run(inputs)) into[name] = nee::Tensor(tensor.type());
  for (auto _ : state) benchmark::DoNotOptimize(session.run(inputs, into));
}

void CApi(benchmark::State& state) {
  const std::shared_ptr<const nee::StagedModel> model = nee::load_staged_onnx(g_model);
  std::map<std::string, nee::Tensor> inputs = model_inputs(*model);
  NeeEnv* env = nullptr;
  NeeSession* session = nullptr;
  check(nee_env_create(nullptr, &env));
  check(nee_session_create(env, g_model.c_str(), nullptr, &session));
  std::vector<const char*> names;
  std::vector<NeeTensor*> wrapped;
  for (auto& [name, tensor] : inputs) {
    names.push_back(name.c_str());
    NeeTensor* t = nullptr;
    check(nee_tensor_wrap(c_dtype(tensor.dtype()), tensor.shape().data(), tensor.shape().size(),
                          tensor.data(), tensor.bytes(), &t));
    wrapped.push_back(t);
  }
  // The outputs' buffers, made by a first run and then filled by every timed one.
  std::vector<NeeTensor*> outputs(nee_session_output_count(session), nullptr);
  check(nee_session_run(session, names.data(), wrapped.data(), wrapped.size(), nullptr, outputs.size(), outputs.data()));
  for (auto _ : state) {
    check(nee_session_run(session, names.data(), wrapped.data(), wrapped.size(), nullptr, outputs.size(),
                          outputs.data()));
  }
  for (NeeTensor* t : outputs) nee_tensor_free(t);
  for (NeeTensor* t : wrapped) nee_tensor_free(t);
  nee_session_free(session);
  nee_env_free(env);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 2) {
    std::fprintf(stderr, "usage: nee-api-overhead [MODEL.onnx] [benchmark flags]\n");
    return 2;
  }
  if (argc == 2) g_model = argv[1];
  // Interleaved and repeated, so that a noisy moment touches both.
  for (int i = 0; i < 5; ++i) {
    benchmark::RegisterBenchmark(fmt::format("internal_session/{}", i).c_str(), InternalSession)->MinTime(0.3);
    benchmark::RegisterBenchmark(fmt::format("c_api/{}", i).c_str(), CApi)->MinTime(0.3);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
