#include "runtime/memory_plan.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/session.h"
#include "tests/runtime/graph_builder.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

// x -> a -> b -> c -> d -> e -> y: a chain of 1024-float (4 KiB) tensors in which each
// intermediate dies as soon as the next one is made.
Graph chain() {
  Graph g;
  g.add_value("x", f32({1024}));
  g.add_input("x");
  std::string prev = "x";
  for (const char* name : {"a", "b", "c", "d", "e", "y"}) {
    add_node(g, "Relu", std::string("relu_") + name, {prev}, name, f32({1024}));
    prev = name;
  }
  g.add_output("y");
  return g;
}

bool lifetimes_overlap(const Graph& g, const std::string& a, const std::string& b) {
  const auto span = [&](const std::string& v) {
    size_t first = 0, last = 0;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
      for (const auto& o : g.nodes()[i].outputs) if (o == v) first = last = i;
      for (const auto& in : g.nodes()[i].inputs) if (in == v) last = i;
    }
    return std::make_pair(first, last);
  };
  const auto [fa, la] = span(a);
  const auto [fb, lb] = span(b);
  return fa <= lb && fb <= la;
}

TEST(MemoryPlan, ChainReusesBytesAndNeverOverlapsLiveTensors) {
  const Graph g = chain();
  const MemoryPlan plan = plan_memory(g);
  EXPECT_EQ(plan.offsets.size(), 5u);  // a..e; y is a graph output
  EXPECT_FALSE(plan.offsets.count("y"));
  EXPECT_EQ(plan.unshared_bytes, 5u * 4096);
  EXPECT_EQ(plan.arena_bytes, 2u * 4096);  // at most two chain links are alive at once
  for (const auto& [a, oa] : plan.offsets) {
    for (const auto& [b, ob] : plan.offsets) {
      if (a >= b || !lifetimes_overlap(g, a, b)) continue;
      EXPECT_TRUE(oa + 4096 <= ob || ob + 4096 <= oa) << a << " and " << b << " share bytes while both live";
    }
  }
}

TEST(MemoryPlan, OffsetsKeepTheAlignmentAsked) {
  // 100-float (400-byte) links: 448 bytes apart at 64-byte alignment, 512 at 512.
  Graph g;
  g.add_value("x", f32({100}));
  g.add_input("x");
  std::string prev = "x";
  for (const char* name : {"a", "b", "c", "y"}) {
    add_node(g, "Relu", std::string("relu_") + name, {prev}, name, f32({100}));
    prev = name;
  }
  g.add_output("y");
  for (const size_t alignment : {size_t{64}, size_t{512}}) {
    const MemoryPlan plan = plan_memory(g, alignment);
    const size_t link = (400 + alignment - 1) / alignment * alignment;
    EXPECT_EQ(plan.arena_bytes, 2 * link) << alignment;
    EXPECT_EQ(plan.unshared_bytes, 3 * link) << alignment;
    for (const auto& [name, offset] : plan.offsets) EXPECT_EQ(offset % alignment, 0u) << name << " at " << alignment;
  }
}

TEST(MemoryPlan, ViewKeepsItsBaseAliveAndViewOfOutputIsNotPlanned) {
  Graph g;
  g.add_value("x", f32({4, 256}));
  g.add_input("x");
  add_node(g, "Relu", "r1", {"x"}, "a", f32({4, 256}));
  Tensor shape(DType::i64, {1});
  shape.data_as<int64_t>()[0] = 1024;
  g.add_constant("shape", shape);
  add_node(g, "Reshape", "view", {"a", "shape"}, "a_flat", f32({1024}));
  add_node(g, "Relu", "r2", {"x"}, "b", f32({4, 256}));
  add_node(g, "Relu", "r3", {"b"}, "c", f32({4, 256}));
  add_node(g, "Add", "sum", {"a_flat", "c"}, "y", f32({1024}));
  g.add_output("y");
  g.add_output("c");
  const MemoryPlan plan = plan_memory(g);
  // a is read through its view by the last node, so it must not share bytes with b.
  ASSERT_TRUE(plan.offsets.count("a"));
  ASSERT_TRUE(plan.offsets.count("b"));
  EXPECT_NE(plan.offsets.at("a"), plan.offsets.at("b"));
  EXPECT_FALSE(plan.offsets.count("a_flat"));
  EXPECT_FALSE(plan.offsets.count("c"));  // a graph output

  // A view of a graph output is not planned either: its bytes are returned.
  Graph h;
  h.add_value("x", f32({8}));
  h.add_input("x");
  add_node(h, "Relu", "r", {"x"}, "a", f32({8}));
  add_node(h, "Identity", "id", {"a"}, "y", f32({8}));
  h.add_output("y");
  EXPECT_TRUE(plan_memory(h).offsets.empty());
}

// x -> Relu a [N,16,4,4]; b = Concat(Sigmoid b1, Sigmoid b2) [N,32,4,4]; Tanh c
// [N,16,4,4], which the last Add reads too; Concat(a, b, c) along channels -> Relu y.
Graph concatenation(int64_t batch) {
  Graph g;
  g.add_value("x", f32({batch, 16, 4, 4}));
  g.add_input("x");
  Attributes axis;
  axis.set("axis", int64_t{1});
  add_node(g, "Relu", "ra", {"x"}, "a", f32({batch, 16, 4, 4}));
  add_node(g, "Sigmoid", "rb1", {"x"}, "b1", f32({batch, 16, 4, 4}));
  add_node(g, "Sigmoid", "rb2", {"x"}, "b2", f32({batch, 16, 4, 4}));
  add_node(g, "Concat", "widen", {"b1", "b2"}, "b", f32({batch, 32, 4, 4}), axis);
  add_node(g, "Tanh", "rc", {"x"}, "c", f32({batch, 16, 4, 4}));
  add_node(g, "Concat", "cat", {"a", "b", "c"}, "cat_out", f32({batch, 64, 4, 4}), axis);
  add_node(g, "Relu", "ry", {"cat_out"}, "y", f32({batch, 64, 4, 4}));
  add_node(g, "Add", "plus_c", {"c", "c"}, "z", f32({batch, 16, 4, 4}));
  g.add_output("y");
  g.add_output("z");
  return g;
}

TEST(MemoryPlan, ABatchOneConcatenationIsWrittenInPlaceByItsInputs) {
  const Graph g = concatenation(1);
  const MemoryPlan plan = plan_memory(g);
  const size_t bytes16 = 16 * 4 * 4 * 4;
  const size_t cat = plan.offsets.at("cat_out");
  // a is made where cat_out holds it, and so is c, which the last Add reads there; b1 and
  // b2 where b holds them; b, which holds them, is copied.
  EXPECT_EQ(plan.offsets.at("a"), cat);
  EXPECT_EQ(plan.offsets.at("c"), cat + 3 * bytes16);
  EXPECT_EQ(plan.offsets.at("b1"), plan.offsets.at("b"));
  EXPECT_EQ(plan.offsets.at("b2"), plan.offsets.at("b") + bytes16);
  // cat_out is live from a's producer to the Add, so nothing made meanwhile shares its bytes.
  const size_t b = plan.offsets.at("b");
  EXPECT_TRUE(b + 2 * bytes16 <= cat || b >= cat + 4 * bytes16);
  // At batch 2 no input is one run of the output.
  const MemoryPlan batched = plan_memory(concatenation(2));
  EXPECT_NE(batched.offsets.at("a"), batched.offsets.at("cat_out"));
  EXPECT_NE(batched.offsets.at("b1"), batched.offsets.at("b"));

  for (int64_t batch : {1, 2}) {
    Session s(concatenation(batch), {});
    Tensor x(DType::f32, {batch, 16, 4, 4});
    for (int64_t i = 0; i < x.elements(); ++i) x.data_as<float>()[i] = static_cast<float>(i % 11) * 0.25f - 1.0f;
    const auto out = s.run({{"x", x}});
    const Tensor& y = out.at("y");
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < 64; ++c) {
        for (int64_t p = 0; p < 16; ++p) {
          const float v = x.data_as<float>()[(n * 16 + c % 16) * 16 + p];
          const float want = c < 16 ? std::max(v, 0.0f) : c < 48 ? 1.0f / (1.0f + std::exp(-v)) : std::tanh(v);
          ASSERT_NEAR(y.data_as<float>()[(n * 64 + c) * 16 + p], std::max(want, 0.0f), 1e-6) << batch << " " << c;
        }
      }
    }
    // The Add read c where the Concat holds it.
    const Tensor& z = out.at("z");
    for (int64_t i = 0; i < z.elements(); ++i) {
      ASSERT_NEAR(z.data_as<float>()[i], 2.0f * std::tanh(x.data_as<float>()[i]), 1e-6) << batch << " " << i;
    }
  }
}

// A dense block (DenseNet's): x0 = Relu(x); c1 = Concat(x0, y1) with y1 = Sigmoid(x);
// u1 = Tanh(c1); y2 = Relu(x); c2 = Concat(x0, y1, y2) repeats c1's inputs and adds
// one; the output concatenates u1 and c2.
Graph dense_block() {
  Graph g;
  g.add_value("x", f32({1, 16, 2, 2}));
  g.add_input("x");
  Attributes axis;
  axis.set("axis", int64_t{1});
  add_node(g, "Relu", "r0", {"x"}, "x0", f32({1, 16, 2, 2}));
  add_node(g, "Sigmoid", "s1", {"x"}, "y1", f32({1, 16, 2, 2}));
  add_node(g, "Concat", "cat1", {"x0", "y1"}, "c1", f32({1, 32, 2, 2}), axis);
  add_node(g, "Tanh", "t1", {"c1"}, "u1", f32({1, 32, 2, 2}));
  add_node(g, "Relu", "r2", {"x"}, "y2", f32({1, 16, 2, 2}));
  add_node(g, "Concat", "cat2", {"x0", "y1", "y2"}, "c2", f32({1, 48, 2, 2}), axis);
  add_node(g, "Concat", "out", {"u1", "c2"}, "y", f32({1, 80, 2, 2}), axis);
  g.add_output("y");
  return g;
}

TEST(MemoryPlan, AChainOfConcatenationsSharesTheLongestOnesBytes) {
  const Graph g = dense_block();
  const MemoryPlan plan = plan_memory(g, 16);
  const size_t block = 16 * 2 * 2 * 4;
  const size_t c2 = plan.offsets.at("c2");
  EXPECT_EQ(plan.offsets.at("c1"), c2);  // a prefix of c2
  EXPECT_EQ(plan.offsets.at("x0"), c2);
  EXPECT_EQ(plan.offsets.at("y1"), c2 + block);
  EXPECT_EQ(plan.offsets.at("y2"), c2 + 2 * block);
  // u1, made while c2's bytes are live, does not share them.
  EXPECT_TRUE(plan.offsets.at("u1") + 2 * block <= c2 || plan.offsets.at("u1") >= c2 + 3 * block);

  Session s(dense_block(), {});
  Tensor x(DType::f32, {1, 16, 2, 2});
  for (int64_t i = 0; i < x.elements(); ++i) x.data_as<float>()[i] = static_cast<float>(i % 9) * 0.5f - 2.0f;
  for (int run = 0; run < 2; ++run) {
    const Tensor y = s.run({{"x", x}}).at("y");
    for (int64_t c = 0; c < 80; ++c) {
      for (int64_t p = 0; p < 4; ++p) {
        const float v = x.data_as<float>()[(c % 16) * 4 + p];
        const float relu = std::max(v, 0.0f), sigmoid = 1.0f / (1.0f + std::exp(-v));
        const float want = c < 16   ? std::tanh(relu)
                           : c < 32 ? std::tanh(sigmoid)
                           : c < 48 ? relu
                           : c < 64 ? sigmoid
                                    : relu;
        ASSERT_NEAR(y.data_as<float>()[c * 4 + p], want, 1e-6) << run << " " << c;
      }
    }
  }
}

TEST(MemoryPlan, SessionOutputsSurviveTheNextRun) {
  // Unoptimized: fuse_elementwise would make the chain one node with no intermediates.
  Session s(chain(), {});
  s.prepare();
  EXPECT_EQ(s.memory_plan().arena_bytes, 2u * 4096);
  Tensor x(DType::f32, {1024});
  for (int i = 0; i < 1024; ++i) x.data_as<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  const Tensor first = s.run({{"x", x}}).at("y");
  Tensor x2(DType::f32, {1024});
  for (int i = 0; i < 1024; ++i) x2.data_as<float>()[i] = 5.0f;
  const Tensor second = s.run({{"x", x2}}).at("y");
  for (int i = 0; i < 1024; ++i) {
    ASSERT_EQ(first.data_as<float>()[i], std::max(0.0f, static_cast<float>(i % 7) - 3.0f));
    ASSERT_EQ(second.data_as<float>()[i], 5.0f);
  }
}

// The chain of 4 KiB links: an 8 KiB arena and the 4 KiB output y per run, 4 KiB of input.
TEST(MemoryCaps, ChainWithinItsCapsPassesAndOneByteLessIsRefused) {
  const Graph g = chain();
  const MemoryPlan plan = plan_memory(g);
  MemoryCaps caps;
  caps.plan_bytes = 3 * 4096;
  caps.total_bytes = 4 * 4096;
  EXPECT_NO_THROW(check_memory_caps(g, plan, caps));
  caps.plan_bytes = 3 * 4096 - 1;
  EXPECT_THAT([&] { check_memory_caps(g, plan, caps); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "a run takes 12 KiB (8 KiB in the memory plan's arena, 4 KiB of tensors allocated per run), over "
                  "the 12.00 KiB cap on one run's memory; the largest tensor is 'a' of node 'relu_a' (Relu)")));
  caps.plan_bytes = 3 * 4096;
  caps.total_bytes = 4 * 4096 - 1;
  EXPECT_THAT([&] { check_memory_caps(g, plan, caps); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("the model takes 16 KiB (0 bytes of constants, "
                                                                   "4 KiB of inputs, 12 KiB per run)")));
}

TEST(MemoryCaps, ConstantsOverTheWeightsCapNameTheLargest) {
  Graph g = chain();
  g.add_constant("small", Tensor(DType::f32, {16}));
  g.add_constant("large", Tensor(DType::f32, {4096}));
  MemoryCaps caps;
  caps.weights_bytes = 16 * 1024;
  EXPECT_THAT([&] { check_memory_caps(g, plan_memory(g), caps); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "the graph's constants take 16.06 KiB, over the 16 KiB cap on the model's weights; the largest is "
                  "'large', f32[4096] (16 KiB)")));
}

}  // namespace
}  // namespace nee
