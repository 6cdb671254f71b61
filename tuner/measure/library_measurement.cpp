#include "tuner/measure/library_measurement.h"

#include <fstream>
#include <istream>
#include <optional>
#include <ostream>

#include "core/error.h"
#include "runtime/bundle/halide_kernel.h"
#include "tuner/measure/reference_file.h"

namespace nee {

namespace {

// The reference output last computed, kept across the candidates of a --serve process.
struct ReferenceMemo {
  std::string of;  // the workload key and seed it was computed for
  Tensor output;
};

MeasureResult measure_request(const ChildMeasurement& m, MeasureOptions options, int threads, ReferenceMemo* memo) {
  try {
    std::ifstream in(m.workload_file);
    if (!in) throw Error("cannot read workload file '" + m.workload_file + "'");
    const Workload workload = Workload::from_json(nlohmann::json::parse(in));
    options.seed = m.seed;
    options.best_us = m.best_us;
    std::optional<Tensor> given;
    const Tensor* expected = nullptr;  // computed by measure_kernel
    if (!m.reference_file.empty()) {
      given = read_reference_file(m.reference_file, workload.output);
      expected = &*given;
    } else if (memo) {
      if (const std::string key = workload.key() + " seed " + std::to_string(m.seed); key != memo->of) {
        memo->of.clear();  // a throwing reference leaves none
        memo->output = reference_output(workload, m.seed);
        memo->of = key;
      }
      expected = &memo->output;
    }
    SharedLibrary lib(m.library);
    attach_kernel_pool(lib, threads);
    HalideKernel kernel(lib, m.symbol);
    kernel.check_signature(workload.inputs, workload.output);
    return measure_kernel(kernel, workload, options, expected);
  } catch (const std::exception& e) {
    MeasureResult result;
    result.status = MeasureStatus::runtime_error;
    result.error = e.what();
    return result;
  }
}

}  // namespace

MeasureResult measure_child_request(const ChildMeasurement& m, const MeasureOptions& options, int threads) {
  return measure_request(m, options, threads, nullptr);
}

void serve_measurements(std::istream& in, std::ostream& out, const MeasureOptions& options, int threads) {
  ReferenceMemo memo;
  for (std::string line; std::getline(in, line);) {
    MeasureResult result;
    try {
      result = measure_request(ChildMeasurement::from_json(nlohmann::json::parse(line)), options, threads, &memo);
    } catch (const std::exception& e) {
      result.status = MeasureStatus::runtime_error;
      result.error = "unreadable request '" + line + "': " + e.what();
    }
    out << kServedResultPrefix << result.to_json().dump() << std::endl;
  }
}

}  // namespace nee
