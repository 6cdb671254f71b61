#pragma once
#include <iosfwd>
#include <string>

#include "core/records.h"
#include "tuner/measure/measurement.h"

namespace nee {

// Loads a candidate's library, attaches the kernel pool (`threads`, 0: every core this
// process may use), checks the kernel's signature against the workload, then verifies
// and times it (measure_kernel). Errors become a runtime_error result.
MeasureResult measure_library_kernel(const std::string& library, const std::string& symbol, const Workload& workload,
                                     const MeasureOptions& options, int threads, const Tensor* expected = nullptr);

// The line before each result in `nee-measure --serve`'s output; other lines are the
// kernels' own messages.
inline constexpr const char* kServedResultPrefix = "nee-measure result: ";

// nee-measure --serve: reads one candidate per line (ChildMeasurement as JSON) and
// answers each with kServedResultPrefix and its result as JSON, until the input ends.
// The reference output of a workload and seed is computed once for the candidates that
// share them (a tuner's round does).
void serve_measurements(std::istream& in, std::ostream& out, const MeasureOptions& options, int threads);

}  // namespace nee
