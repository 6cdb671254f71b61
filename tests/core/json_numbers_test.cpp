// Numbers from outside JSON are read strictly: an integer field refuses a float (whose
// conversion would be undefined out of range) and a value past its type, by name; the
// readers of records, manifests and workloads use them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/json_numbers.h"
#include "core/target.h"
#include "core/workload.h"

namespace nee {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// What refuses: a nee::Error whose message holds `text`.
auto Refused(const std::string& text) { return ::testing::ThrowsMessage<Error>(HasSubstr(text)); }

TEST(JsonNumbers, IntegersAreIntegersWithinTheirType) {
  EXPECT_EQ(json_int(json(-7), "x"), -7);
  EXPECT_EQ(json_uint(json(18446744073709551615ull), "seed"), 18446744073709551615ull);
  EXPECT_EQ(json_int32(json(2147483647), "n"), 2147483647);
  EXPECT_THAT([] { json_int(json(2.5), "dim"); }, Refused("dim is not a 64-bit integer"));
  EXPECT_THAT([] { json_int(json(2.33e97), "cores"); }, Refused("cores is not a 64-bit integer"));
  EXPECT_THAT([] { json_int(json(18446744073709551615ull), "id"); }, Refused("not a 64-bit integer"));
  EXPECT_THAT([] { json_int32(json(int64_t{1} << 40), "n"); }, Refused("beyond a 32-bit integer"));
  EXPECT_THAT([] { json_uint(json(-1), "seed"); }, Refused("not a non-negative"));
  EXPECT_THAT([] { json_ints(json::parse("[1, 2.0]"), "shape"); }, Refused("shape is not"));
}

TEST(JsonNumbers, FloatsAreNumbersWithinTheirType) {
  EXPECT_EQ(json_double(json(3), "t"), 3.0);
  EXPECT_EQ(json_float(json(0.5), "w"), 0.5f);
  EXPECT_THAT([] { json_float(json(1e300), "w"); }, Refused("beyond a float's range"));
  EXPECT_THAT([] { json_double(json("3"), "t"); }, Refused("t is not a number"));
  EXPECT_EQ(json_int_or(json::object(), "absent", 4), 4);
  EXPECT_EQ(json_double_or(json{{"t", 2}}, "t", 0.0), 2.0);
}

// What fuzzing found in a bundle manifest, and a workload's shape given as floats.
TEST(JsonNumbers, RecordsAndManifestsUseThem) {
  const json device = json::parse(R"({"cores": 2.3e97, "cpu_model": "x"})");
  EXPECT_THAT([&] { DeviceFingerprint::from_json(device); }, Refused("'cores' is not a 64-bit integer"));
  const json target = json::parse(R"({"halide": "x86-64-linux", "halide_major": 3e60, "device": {}})");
  EXPECT_THAT([&] { Target::from_json(target); }, Refused("'halide_major' is not a 64-bit integer"));
  const json workload = json::parse(
      R"({"op": "softmax", "attrs": {"axis": 1}, "inputs": [{"dtype": "f32", "shape": [2, 3.5]}],
          "output": {"dtype": "f32", "shape": [2, 3]}})");
  EXPECT_THAT([&] { Workload::from_json(workload); }, Refused("shape is not a 64-bit integer"));
}

}  // namespace
}  // namespace nee
