// The object cache: a schedule compiled once is linked, not compiled, the next time, by
// another Builder or a bundle; what it links computes what the compiled one did; and
// pruning drops the least recently used objects first.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"
#include "core/isa_level.h"
#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/compile/object_cache.h"
#include "tuner/runners/local_runner.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using tuner_test::TempDir;

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// Every file's inode: a compile stores a new file in place of the old.
std::map<std::string, ino_t> inodes(const std::string& dir) {
  std::map<std::string, ino_t> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    struct stat st {};
    if (stat(e.path().c_str(), &st) == 0) out[e.path().filename().string()] = st.st_ino;
  }
  return out;
}

TEST(ObjectCache, ASchedulesObjectIsCompiledOnceAndLinkedAfter) {
  TempDir dir("object-cache");
  const ObjectCache cache(dir.file("objects"));
  const Target target = host_target(TargetKind::cpu);
  const Workload w = make_matmul_workload({DType::f32, {24, 16}}, {DType::f32, {16, 40}}, nullptr, {});
  const auto space = make_schedule_space(w, TargetKind::cpu);
  const ScheduleConfig first = space->default_config();
  ScheduleConfig second = space->default_config();
  std::mt19937_64 rng(3);
  while (second == first) second = space->random_config(rng);
  const Candidate a{w, target, first, "default", 0, {}};
  const Candidate b{w, target, second, "random", 1, {}};

  Builder one(dir.file("one"), 2, 120, cache);
  ASSERT_TRUE(one.build({a})[0].ok());
  EXPECT_EQ(one.cache_hits(), 0);
  EXPECT_EQ(files_in(cache.dir()), 2u) << "the runtime's object and the kernel's";

  // Another builder (a later run) links the kept object; a new point is compiled.
  Builder two(dir.file("two"), 2, 120, cache);
  const std::vector<BuildResult> built = two.build({a, b});
  ASSERT_TRUE(built[0].ok()) << built[0].error;
  ASSERT_TRUE(built[1].ok()) << built[1].error;
  EXPECT_EQ(two.cache_hits(), 1);
  EXPECT_EQ(files_in(cache.dir()), 3u);
  RunnerOptions options;
  options.repeats = 1;
  options.min_sample_ms = 1;
  options.timeout_seconds = 60;
  LocalRunner runner(options, NEE_MEASURE_PATH);
  for (size_t i = 0; i < built.size(); ++i) {
    const MeasureResult r = runner.measure(built[i], i == 0 ? a : b, 7);
    EXPECT_EQ(r.status, MeasureStatus::ok) << r.error;
  }

  // A cache that is off compiles into the builder's own folder, every time.
  Builder off(dir.file("off"), 2, 120);
  ASSERT_TRUE(off.build({a})[0].ok());
  EXPECT_EQ(off.cache_hits(), 0);
  EXPECT_EQ(files_in(cache.dir()), 3u);

  // A bundle of the same workload links the object the search compiled (one symbol for
  // both) and, built again, compiles nothing.
  BundleRequest request;
  request.workloads = {w};
  request.target = target;
  request.use_database = false;
  request.output_dir = dir.file("bundle");
  request.object_cache = cache;
  const std::map<std::string, ino_t> kept = inodes(cache.dir());
  build_bundle(nullptr, request);
  EXPECT_EQ(inodes(cache.dir()), kept) << "the default schedule's object is the one candidate a compiled";
  build_bundle(nullptr, request);
  EXPECT_EQ(inodes(cache.dir()), kept) << "an object compiled again is a new file";
  EXPECT_TRUE(fs::exists(dir.file("bundle/manifest.json")));
}

// What nee-tune compiles before a search under --time: every level's objects, so that the
// bundle built after it only links them.
TEST(ObjectCache, ABundleCompiledAheadIsOnlyLinked) {
  TempDir dir("object-cache-ahead");
  const ObjectCache cache(dir.file("objects"));
  BundleRequest request;
  request.workloads = {make_matmul_workload({DType::f32, {8, 16}}, {DType::f32, {16, 24}}, nullptr, {}),
                       make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 16}}, nullptr, {})};
  request.target = host_target(TargetKind::cpu);
  request.isa_levels = {host_isa_levels().front()->name, host_isa_level().name};
  request.use_database = false;
  request.output_dir = dir.file("bundle");
  EXPECT_THROW(compile_bundle_objects(nullptr, request), Error) << "the cache is off";

  request.object_cache = cache;
  compile_bundle_objects(nullptr, request);
  const size_t levels = request.isa_levels[0] == request.isa_levels[1] ? 1 : 2;
  EXPECT_EQ(files_in(cache.dir()), levels * 3) << "each level's runtime and two kernels";
  EXPECT_FALSE(fs::exists(dir.file("bundle"))) << "objects only";
  const std::map<std::string, ino_t> kept = inodes(cache.dir());
  const BundleManifest m = build_bundle(nullptr, request);
  EXPECT_EQ(inodes(cache.dir()), kept) << "the bundle compiled an object again";
  EXPECT_EQ(m.variants.size(), levels);

  // A request that names a workload twice is refused before anything is compiled.
  request.workloads.push_back(request.workloads[0]);
  EXPECT_THROW(compile_bundle_objects(nullptr, request), Error);
  EXPECT_THROW(build_bundle(nullptr, request), Error);
  EXPECT_EQ(inodes(cache.dir()), kept);
}

TEST(ObjectCache, PruningDropsTheLeastRecentlyUsedFirst) {
  TempDir dir("object-cache-prune");
  const ObjectCache cache(dir.file("objects"));
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 4; ++i) {
    const std::string path = cache.dir() + "/" + std::to_string(i) + ".o";
    std::ofstream(path) << std::string(1000, 'x');
    fs::last_write_time(path, now - std::chrono::hours(10 - i));
  }
  ASSERT_TRUE(ObjectCache::take(cache.dir() + "/0.o"));  // the oldest, used just now
  EXPECT_FALSE(ObjectCache::take(cache.dir() + "/missing.o"));
  cache.prune(2500);
  EXPECT_TRUE(fs::exists(cache.dir() + "/0.o"));
  EXPECT_FALSE(fs::exists(cache.dir() + "/1.o"));
  EXPECT_FALSE(fs::exists(cache.dir() + "/2.o"));
  EXPECT_TRUE(fs::exists(cache.dir() + "/3.o"));
  cache.prune(1 << 20);
  EXPECT_EQ(files_in(cache.dir()), 2u);
}

}  // namespace
}  // namespace nee
