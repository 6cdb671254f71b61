#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/workload.h"

namespace nee {

// The operator families: the kinds of kernel NEE writes once in Halide, tunes, bundles and
// runs, each named by a Workload's `op`. This list is the one every per-family table is
// built from (core's rows below, the schedule spaces in schedules/family_spaces.cpp, the
// references in runtime/reference/family_reference.h) and the build reads to find each
// family's sources (cmake/families.cmake): a family missing from a table is a compile,
// link or CMake error, never a silent default. Adding a family is one entry here and one
// row per table (docs/ARCHITECTURE.md). The build reads the list from its one line, which
// may run past 120 characters.
#define NEE_FAMILIES(X) X(matmul) X(conv2d) X(elementwise) X(pool2d) X(softmax) X(layernorm) X(strided_copy) X(attention) X(resize)

enum class FamilyId {
#define NEE_FAMILY_ID(name) name,
  NEE_FAMILIES(NEE_FAMILY_ID)
#undef NEE_FAMILY_ID
};

#define NEE_FAMILY_COUNT(name) +1
inline constexpr size_t kFamilyCount = 0 NEE_FAMILIES(NEE_FAMILY_COUNT);
#undef NEE_FAMILY_COUNT

// How a family's speed is reported: work over time, in GFLOP/s for those that compute,
// in GB/s of the fewest bytes read and written for those bound by moving data.
enum class SpeedUnit { gflops, gbytes };

// What the layers without Halide need to know of a family (nee-measure and the runtime
// link this, so it holds no compiler). Each family's row is defined beside the rest of
// its workload code in core/.
struct Family {
  FamilyId id;
  std::string name;  // the Workload's op
  // FLOPs of one call; 0 for a family that computes nothing.
  double (*flops)(const Workload&);
  // The terms each output element sums or compares: the scale of the rounding error a
  // correct kernel may show against the reference; 0 where nothing is rounded (a copy).
  int64_t (*reduction_length)(const Workload&);
  SpeedUnit speed_unit;
  // `nee-tune --op NAME --shape TEXT`: the workload TEXT names (nee::Error naming what is
  // malformed), and the help for TEXT.
  Workload (*from_shape)(const std::string&);
  std::string shape_help;
  // For seeding a search from similar workloads: the attributes of the fused epilogue,
  // which do not change the loop nest, and the number of leading inputs the loop nest
  // reads (the rest feed the epilogue); 0: every input, and no epilogue.
  std::vector<std::string> epilogue_attrs;
  size_t loop_nest_inputs;
  // The typed attributes of a workload from their canonical JSON (database rows,
  // manifests); nee::Error naming what is missing or mistyped.
  std::shared_ptr<const WorkloadAttrs> (*attrs_from_json)(const nlohmann::json&);
  // What the family's constructor (make_<family>_workload) makes of the workload's inputs
  // and attributes; nee::Error for what it refuses (see require_family_made).
  Workload (*remade)(const Workload&);
};

// One function per family gives its row, defined in the family's own file.
#define NEE_FAMILY_ROW_DECLARATION(name) Family name##_family();
NEE_FAMILIES(NEE_FAMILY_ROW_DECLARATION)
#undef NEE_FAMILY_ROW_DECLARATION

// Every family, in the list's order (a FamilyId indexes it).
const std::vector<Family>& families();
// The family of that op name; nee::Error naming the known ones otherwise.
const Family& family_named(const std::string& name);
// The family of a workload; nee::Error for an op NEE has no family for (a record or a
// manifest written by a later NEE, say).
const Family& family_of(const Workload& w);
// Every family's name, in the list's order.
std::vector<std::string> family_names();

// A workload read from outside (an imported record, a batch folder) is only as sound as
// its text, while the Halide algorithms index by its shapes: fuzzing `db import` found a
// matmul record whose output lacked its B's batch dim, read past the algorithm's batch
// variables. Throws nee::Error unless the workload is exactly what its family makes of
// its inputs and attributes (its output shape included).
void require_family_made(const Workload& w);
// For Family::remade: nee::Error unless the workload has exactly `count` inputs.
void require_input_count(const Workload& w, size_t count);

}  // namespace nee
