#pragma once
#include <iosfwd>

#include "core/records.h"
#include "tuner/measure/child_measurement.h"
#include "tuner/measure/measurement.h"

namespace nee {

// Measures the candidate a child is handed: reads its workload file, loads its library,
// attaches the kernel pool (`threads`, 0: every core this process may use), checks the
// kernel's signature, then verifies and times it (measure_kernel) with m's seed and best
// median. The expected output is m's reference file, else computed here. Errors become a
// runtime_error result.
MeasureResult measure_child_request(const ChildMeasurement& m, const MeasureOptions& options, int threads);

// The line before each result in `nee-measure --serve`'s output; other lines are the
// kernels' own messages.
inline constexpr const char* kServedResultPrefix = "nee-measure result: ";

// nee-measure --serve: reads one candidate per line (ChildMeasurement as JSON) and
// answers each with kServedResultPrefix and its result as JSON, until the input ends.
// The reference output of a workload and seed is computed once for the candidates that
// share them (a tuner's batch does).
void serve_measurements(std::istream& in, std::ostream& out, const MeasureOptions& options, int threads);

}  // namespace nee
