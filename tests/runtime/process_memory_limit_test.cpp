// The memory limit that NEE's default caps take, read from a made-up /proc/self/cgroup
// and cgroup tree: the least of physical memory, every cgroup's limit from the process's
// up to the mount's root, and the ulimit.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/process_memory_limit.h"
#include "runtime/tensor_limits.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kGiB = int64_t{1} << 30;

class CgroupTree : public ::testing::Test {
 protected:
  CgroupTree() : root_(fs::temp_directory_path() / ("nee-cgroup-" + std::to_string(getpid()))) {
    fs::remove_all(root_);
  }
  ~CgroupTree() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    const fs::path p = root_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  ProcessMemoryLimit read(const std::string& proc_self_cgroup, int64_t rlimit = -1) {
    return read_process_memory_limit(24 * kGiB, proc_self_cgroup, root_.string(), rlimit);
  }

  fs::path root_;
};

TEST_F(CgroupTree, PhysicalMemoryWhenNothingIsLower) {
  write("memory.max", "max\n");
  write("a/memory.max", "max\n");
  const ProcessMemoryLimit limit = read("0::/a\n");
  EXPECT_EQ(limit.bytes, 24 * kGiB);
  EXPECT_EQ(limit.source, "physical memory");
}

TEST_F(CgroupTree, TheLeastOfTheCgroupAndItsParentsV2) {
  write("a/memory.max", std::to_string(6 * kGiB) + "\n");
  write("a/b/memory.max", "max\n");
  write("a/b/c/memory.max", std::to_string(8 * kGiB) + "\n");
  const ProcessMemoryLimit limit = read("0::/a/b/c\n");
  EXPECT_EQ(limit.bytes, 6 * kGiB);
  EXPECT_EQ(limit.source, "cgroup /a (memory.max)");
}

// A container's /proc/self/cgroup names its path on the host; its mount shows only its
// own cgroup, at the root.
TEST_F(CgroupTree, V1MemoryControllerUpToTheMountRoot) {
  write("memory/memory.limit_in_bytes", std::to_string(2 * kGiB) + "\n");
  const ProcessMemoryLimit limit = read("4:memory:/process_api/89a5\n3:cpuset:/\n0::/\n");
  EXPECT_EQ(limit.bytes, 2 * kGiB);
  EXPECT_EQ(limit.source, "cgroup / (memory.limit_in_bytes)");
  // v1's "no limit" is a page-rounded LLONG_MAX.
  write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(read("4:memory:/process_api/89a5\n").bytes, 24 * kGiB);
}

TEST_F(CgroupTree, UlimitAndUnreadableFiles) {
  write("memory.max", "lots\n");
  EXPECT_EQ(read("0::/\n", 3 * kGiB).bytes, 3 * kGiB);
  EXPECT_EQ(read("0::/\n", 3 * kGiB).source, "ulimit -v or -d");
  EXPECT_EQ(read("garbage\n0::relative\n0::/../..\n").bytes, 24 * kGiB);
}

TEST(DefaultCaps, AreWhatThisProcessCanHave) {
  const ProcessMemoryLimit& limit = process_memory_limit();
  EXPECT_GT(limit.bytes, int64_t{64} << 20);
  const MemoryCaps caps;
  EXPECT_EQ(caps.total_bytes, limit.bytes);
  EXPECT_EQ(caps.weights_bytes, limit.bytes);
  EXPECT_EQ(caps.tensor_bytes, std::min(kMaxTensorBytes, limit.bytes));
}

}  // namespace
}  // namespace nee
