#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "graph_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;
using ::testing::HasSubstr;

Graph relu_graph() {
  Graph g;
  g.add_value("x", f32({2, 3}));
  g.add_input("x");
  add_node(g, "Relu", "act", {"x"}, "y", f32({2, 3}));
  g.add_output("y");
  return g;
}

std::string run_error(Session& session, const std::map<std::string, Tensor>& inputs) {
  try {
    session.run(inputs);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "run succeeded";
  return "";
}

TEST(Session, RejectsMissingInput) {
  Session s(relu_graph(), {}, SessionOptions{optimize_graph});
  EXPECT_THAT(run_error(s, {}), HasSubstr("input 'x' (f32[2,3]) is missing"));
}

TEST(Session, RejectsWrongShape) {
  Session s(relu_graph(), {}, SessionOptions{optimize_graph});
  const std::string error = run_error(s, {{"x", Tensor(DType::f32, {3, 2})}});
  EXPECT_THAT(error, HasSubstr("'x'"));
  EXPECT_THAT(error, HasSubstr("f32[3,2]"));
  EXPECT_THAT(error, HasSubstr("expected f32[2,3]"));
}

TEST(Session, RejectsWrongDtype) {
  Session s(relu_graph(), {}, SessionOptions{optimize_graph});
  const std::string error = run_error(s, {{"x", Tensor(DType::i64, {2, 3})}});
  EXPECT_THAT(error, HasSubstr("'x' has dtype i64"));
  EXPECT_THAT(error, HasSubstr("expected f32[2,3]"));
}

TEST(Session, RejectsUnknownInput) {
  Session s(relu_graph(), {}, SessionOptions{optimize_graph});
  const std::string error = run_error(s, {{"x", Tensor(DType::f32, {2, 3})}, {"extra", Tensor(DType::f32, {1})}});
  EXPECT_THAT(error, HasSubstr("'extra' is not an input"));
}

TEST(Session, UnbindableNodeIsNamed) {
  Graph g;
  g.add_value("x", f32({2}));
  g.add_input("x");
  add_node(g, "Bogus", "strange_node", {"x"}, "y", f32({2}));
  g.add_output("y");
  Session s(std::move(g), {}, SessionOptions{optimize_graph});
  try {
    s.prepare();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'strange_node'"));
    EXPECT_THAT(e.what(), HasSubstr("Bogus"));
  }
}

// A provider that binds Relu only, to check providers are asked before the reference.
class NegatingProvider : public KernelProvider {
 public:
  std::string name() const override { return "negating"; }
  std::unique_ptr<NodeKernel> bind(const Graph&, const Node& node) override {
    if (node.op != "Relu") return nullptr;
    struct Kernel : NodeKernel {
      void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
        for (int64_t i = 0; i < in[0]->elements(); ++i) out[0]->data_as<float>()[i] = -in[0]->data_as<float>()[i];
      }
      std::string name() const override { return "negate"; }
    };
    return std::make_unique<Kernel>();
  }
};

TEST(Session, ProvidersAreTriedInOrderBeforeReference) {
  Graph g = relu_graph();
  add_node(g, "Sigmoid", "sig", {"y"}, "z", f32({2, 3}));
  g.add_output("z");
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(std::make_unique<NegatingProvider>());
  // Unoptimized, so the Relu and the Sigmoid are not fused into one elementwise node.
  Session s(std::move(g), std::move(providers));
  const Tensor x = random_tensor(f32({2, 3}), 1);
  const auto out = s.run({{"x", x}});
  EXPECT_EQ(out.at("y").data_as<float>()[0], -x.data_as<float>()[0]);
  const auto placements = s.placements();
  ASSERT_EQ(placements.size(), 2u);
  EXPECT_EQ(placements[0].provider, "negating");
  EXPECT_EQ(placements[0].kernel, "negate");
  EXPECT_EQ(placements[1].provider, "reference");
  EXPECT_EQ(placements[1].kernel, "reference.Sigmoid");
  EXPECT_EQ(s.node_times_us().size(), 2u);
}

TEST(Session, ConstantOutputsAndRepeatedRuns) {
  Graph g = relu_graph();
  g.add_constant("k", random_tensor(f32({3}), 2));
  add_node(g, "Add", "plus_k", {"y", "k"}, "z", f32({2, 3}));
  g.add_output("z");
  Session s(std::move(g), {}, SessionOptions{optimize_graph});
  const Tensor x = random_tensor(f32({2, 3}), 3);
  const auto first = s.run({{"x", x}});
  const auto second = s.run({{"x", x}});
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(first.at("z").data_as<float>()[i], second.at("z").data_as<float>()[i]);
}

// Binds Relu to a kernel that writes its output, then waits until `runs` calls are inside
// it at once (or 20 s have passed, which marks the wait as timed out): runs that took
// turns would never meet there.
class MeetingProvider : public KernelProvider {
 public:
  explicit MeetingProvider(int runs) : runs_(runs) {}
  std::string name() const override { return "meeting"; }
  bool timed_out() const { return timed_out_; }
  std::unique_ptr<NodeKernel> bind(const Graph&, const Node& node) override {
    if (node.op != "Relu") return nullptr;
    struct Kernel : NodeKernel {
      explicit Kernel(MeetingProvider& provider) : provider(provider) {}
      void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
        for (int64_t i = 0; i < in[0]->elements(); ++i) {
          out[0]->data_as<float>()[i] = std::max(in[0]->data_as<float>()[i], 0.0f);
        }
        std::unique_lock<std::mutex> lock(provider.mutex_);
        ++provider.inside_;
        provider.met_.notify_all();
        const auto all_inside = [&] { return provider.inside_ >= provider.runs_; };
        if (!provider.met_.wait_for(lock, std::chrono::seconds(20), all_inside)) provider.timed_out_ = true;
      }
      std::string name() const override { return "meeting"; }
      MeetingProvider& provider;
    };
    return std::make_unique<Kernel>(*this);
  }

 private:
  const int runs_;
  std::mutex mutex_;
  std::condition_variable met_;
  int inside_ = 0;
  bool timed_out_ = false;
};

// x [64] -> Relu (the meeting kernel) -> h, an intermediate in the arena -> Sigmoid -> y.
Graph relu_sigmoid_graph() {
  Graph g;
  g.add_value("x", f32({64}));
  g.add_input("x");
  add_node(g, "Relu", "act", {"x"}, "h", f32({64}));
  add_node(g, "Sigmoid", "sig", {"h"}, "y", f32({64}));
  g.add_output("y");
  return g;
}

// Runs `s` from `runs` threads at once on fresh random inputs and checks every output.
void run_from_threads(Session& s, int runs) {
  std::vector<Tensor> xs, ys(runs);
  for (int r = 0; r < runs; ++r) xs.push_back(random_tensor(f32({64}), 40 + r));
  std::vector<std::thread> threads;
  for (int r = 0; r < runs; ++r) {
    threads.emplace_back([&, r] { ys[r] = s.run({{"x", xs[r]}}).at("y"); });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < runs; ++r) {
    for (int64_t i = 0; i < 64; ++i) {
      const float expected = 1.0f / (1.0f + std::exp(-std::max(xs[r].data_as<float>()[i], 0.0f)));
      ASSERT_NEAR(ys[r].data_as<float>()[i], expected, 1e-6f) << "run " << r << ", element " << i;
    }
  }
}

TEST(Session, RunsFromSeveralThreadsOverlapEachInAnArenaOfItsOwn) {
  constexpr int kRuns = 4;
  auto meeting = std::make_unique<MeetingProvider>(kRuns);
  const MeetingProvider& provider = *meeting;
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(std::move(meeting));
  Session s(relu_sigmoid_graph(), std::move(providers));
  s.prepare();
  ASSERT_TRUE(s.memory_plan().offsets.count("h"));  // h lives in an arena
  run_from_threads(s, kRuns);
  EXPECT_FALSE(provider.timed_out()) << "the runs did not overlap";
  EXPECT_EQ(s.arenas(), static_cast<size_t>(kRuns));
}

TEST(Session, OverlappingRunsStayWithinTheMemoryCap) {
  Session probe(relu_sigmoid_graph(), {});
  probe.prepare();
  // A run takes its input x, its arena and its output y; the cap holds two and a half.
  const int64_t run_bytes = 256 + static_cast<int64_t>(probe.memory_plan().arena_bytes) + 256;
  MemoryCaps caps;
  caps.total_bytes = 2 * run_bytes + run_bytes / 2;
  auto meeting = std::make_unique<MeetingProvider>(2);
  const MeetingProvider& provider = *meeting;
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(std::move(meeting));
  Session s(relu_sigmoid_graph(), std::move(providers), SessionOptions{nullptr, caps});
  run_from_threads(s, 6);
  EXPECT_FALSE(provider.timed_out()) << "two runs did not overlap";
  EXPECT_EQ(s.arenas(), 2u);  // the other four runs waited for an arena
}

}  // namespace
}  // namespace nee
