#include <gtest/gtest.h>

#include <chrono>

#include "graph_builder.h"
#include "runtime/reference/reference_provider.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

// Compares the reference NeeMatMul (i,k,j loops, broadcast bias, relu) with a naive
// triple loop written here, and reports its speed.
TEST(ReferenceMatMul, MatchesNaiveLoopsAndIsReasonablyFast) {
  const int64_t m = 192, k = 256, n = 160;
  Graph g;
  g.add_value("a", f32({m, k}));
  g.add_value("b", f32({k, n}));
  g.add_value("c", f32({m, 1}));
  Attributes attrs;
  attrs.set("alpha", 0.5f);
  attrs.set("beta", 2.0f);
  attrs.set("relu", int64_t{1});
  add_node(g, "NeeMatMul", "mm", {"a", "b", "c"}, "y", f32({m, n}), attrs);
  auto kernel = make_reference_provider()->bind(g, g.nodes()[0]);
  ASSERT_TRUE(kernel);
  const Tensor a = random_tensor(f32({m, k}), 1), b = random_tensor(f32({k, n}), 2), c = random_tensor(f32({m, 1}), 3);
  Tensor y(f32({m, n}));
  const auto start = std::chrono::steady_clock::now();
  kernel->run({&a, &b, &c}, {&y});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a.data_as<float>()[i * k + p] * b.data_as<float>()[p * n + j];
      const double want = std::max(0.0, 0.5 * sum + 2.0 * c.data_as<float>()[i]);
      ASSERT_NEAR(y.data_as<float>()[i * n + j], want, 1e-4) << i << "," << j;
    }
  }
  RecordProperty("gflops", std::to_string(2.0 * m * n * k / seconds / 1e9));
}

}  // namespace
}  // namespace nee
