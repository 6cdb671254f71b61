#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "graph_builder.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;
using ::testing::HasSubstr;

TEST(Graph, TopologicalOrderPutsProducersFirst) {
  Graph g;
  g.add_value("x", f32({2}));
  g.add_input("x");
  add_node(g, "Relu", "second", {"a"}, "b", f32({2}));
  add_node(g, "Relu", "first", {"x"}, "a", f32({2}));
  g.add_output("b");
  g.sort_topologically();
  EXPECT_EQ(g.nodes()[0].name, "first");
  EXPECT_EQ(g.nodes()[1].name, "second");
}

TEST(Graph, CycleErrorNamesNodeOnCycle) {
  Graph g;
  g.add_value("x", f32({2}));
  add_node(g, "Relu", "feeder", {"x"}, "f", f32({2}));
  add_node(g, "Add", "loop_a", {"f", "c"}, "b", f32({2}));
  add_node(g, "Relu", "loop_b", {"b"}, "c", f32({2}));
  add_node(g, "Relu", "downstream", {"c"}, "d", f32({2}));
  try {
    g.topological_order();
    FAIL();
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("cycle"));
    EXPECT_TRUE(message.find("loop_a") != std::string::npos || message.find("loop_b") != std::string::npos)
        << message;
  }
}

TEST(Graph, ConstantsTypesAndSummary) {
  Graph g;
  g.add_constant("w", Tensor(DType::f32, {2, 2}));
  g.add_value("x", f32({1, 2}));
  g.add_input("x");
  Attributes attrs;
  attrs.set("relu", int64_t{1});
  add_node(g, "NeeMatMul", "mm", {"x", "w"}, "y", f32({1, 2}), attrs);
  g.add_output("y");
  ASSERT_NE(g.constant("w"), nullptr);
  EXPECT_EQ(g.constant("x"), nullptr);
  EXPECT_EQ(g.type_of("w"), f32({2, 2}));
  EXPECT_THROW(g.type_of("nope"), Error);
  EXPECT_THROW(g.add_value("x", f32({1})), Error);
  const std::string summary = g.summary();
  EXPECT_THAT(summary, HasSubstr("input x: f32[1,2]"));
  EXPECT_THAT(summary, HasSubstr("constant w: f32[2,2]"));
  EXPECT_THAT(summary, HasSubstr("y: f32[1,2] = NeeMatMul(x, w) {relu=1}  # mm"));
  EXPECT_EQ(g.consumers("w").size(), 1u);
  EXPECT_EQ(g.producer("y")->name, "mm");
}

TEST(Attributes, TypedAccessAndErrors) {
  Attributes a;
  a.set("alpha", 0.5f);
  a.set("perm", std::vector<int64_t>{1, 0});
  EXPECT_EQ(a.get_float("alpha"), 0.5f);
  EXPECT_EQ(a.get_int("missing", 7), 7);
  EXPECT_EQ(a.get_ints("perm"), (std::vector<int64_t>{1, 0}));
  EXPECT_THAT([&] { try { a.get_int("alpha"); } catch (const Error& e) { return std::string(e.what()); } return std::string(); }(),
              HasSubstr("'alpha' is not of type int"));
  EXPECT_THROW(a.get_string("missing"), Error);
}

}  // namespace
}  // namespace nee
