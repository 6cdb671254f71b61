#include "tuner/measure/library_measurement.h"

#include <fstream>
#include <iostream>
#include <optional>

#include "core/error.h"
#include "runtime/bundle/halide_kernel.h"
#include "tuner/measure/child_measurement.h"
#include "tuner/measure/reference_file.h"

namespace nee {

MeasureResult measure_library_kernel(const std::string& library, const std::string& symbol, const Workload& workload,
                                     const MeasureOptions& options, int threads, const Tensor* expected) {
  try {
    SharedLibrary lib(library);
    attach_kernel_pool(lib, threads);
    HalideKernel kernel(lib, symbol);
    kernel.check_signature(workload.inputs, workload.output);
    return measure_kernel(kernel, workload, options, expected);
  } catch (const std::exception& e) {
    MeasureResult result;
    result.status = MeasureStatus::runtime_error;
    result.error = e.what();
    return result;
  }
}

void serve_measurements(std::istream& in, std::ostream& out, const MeasureOptions& options, int threads) {
  std::string reference_of;  // the workload key and seed `reference` was computed for
  Tensor reference;
  for (std::string line; std::getline(in, line);) {
    MeasureResult result;
    try {
      const ChildMeasurement m = ChildMeasurement::from_json(nlohmann::json::parse(line));
      std::ifstream workload_in(m.workload_file);
      if (!workload_in) throw Error("cannot read workload file '" + m.workload_file + "'");
      const Workload workload = Workload::from_json(nlohmann::json::parse(workload_in));
      MeasureOptions these = options;
      these.seed = m.seed;
      these.best_us = m.best_us;
      std::optional<Tensor> given;
      if (!m.reference_file.empty()) {
        given = read_reference_file(m.reference_file, workload.output);
      } else if (const std::string key = workload.key() + " seed " + std::to_string(m.seed); key != reference_of) {
        reference_of.clear();  // a throwing reference leaves none
        reference = reference_output(workload, m.seed);
        reference_of = key;
      }
      result = measure_library_kernel(m.library, m.symbol, workload, these, threads, given ? &*given : &reference);
    } catch (const std::exception& e) {
      result.status = MeasureStatus::runtime_error;
      result.error = e.what();
    }
    out << kServedResultPrefix << result.to_json().dump() << std::endl;
  }
}

}  // namespace nee
