// drop_padding_taps: conv taps that read only padding for every output are dropped, and
// the conv left computes what the whole one does (against the graph run as built).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::set_attr;

struct Case {
  std::vector<int64_t> x, kernel, strides, dilations, pads;
  std::vector<int64_t> live_kernel, live_pads;  // what the conv keeps
};

TEST(DropPaddingTaps, TapsThatReadOnlyPaddingGoAndTheConvComputesTheSame) {
  const std::vector<Case> cases = {
      // DeepLabV3's atrous pyramid at rate 36 on a small map: the centre tap alone.
      {{1, 4, 6, 7}, {3, 3}, {1, 1}, {36, 36}, {36, 36, 36, 36}, {1, 1}, {0, 0, 0, 0}},
      // Rows lose their outer taps; columns, all read, stay.
      {{1, 3, 2, 9}, {3, 3}, {1, 1}, {3, 1}, {3, 1, 3, 1}, {1, 3}, {0, 1, 0, 1}},
      // Only the first tap goes, and the begin pad gives up what it spanned.
      {{1, 2, 3}, {3}, {1}, {2}, {4, 0}, {2}, {2, 0}},
      // Strided: tap 0 reads the input from the second output on, so all stay.
      {{1, 2, 4}, {3}, {3}, {2}, {2, 2}, {3}, {2, 2}},
      // Rate 24 on 28: every tap reads the map for some output.
      {{1, 2, 28, 28}, {3, 3}, {1, 1}, {24, 24}, {24, 24, 24, 24}, {3, 3}, {24, 24, 24, 24}},
  };
  for (const Case& c : cases) {
    OnnxModelBuilder m;
    m.input("x", c.x);
    std::vector<int64_t> w = {5, c.x[1]};
    w.insert(w.end(), c.kernel.begin(), c.kernel.end());
    m.initializer("w", random_tensor({DType::f32, w}, 31));
    m.initializer("b", random_tensor({DType::f32, {5}}, 32));
    onnx::NodeProto& node = m.node("Conv", {"x", "w", "b"}, {"y"}, "conv");
    set_attr(node, "kernel_shape", c.kernel);
    set_attr(node, "strides", c.strides);
    set_attr(node, "dilations", c.dilations);
    set_attr(node, "pads", c.pads);
    m.output("y");
    const std::string bytes = m.bytes();
    Graph cut = import_onnx_bytes(bytes);
    drop_padding_taps(cut);
    ASSERT_EQ(cut.nodes().size(), 1u);
    const Node& conv = cut.nodes()[0];
    EXPECT_EQ(conv.attrs.get_ints("kernel_shape"), c.live_kernel) << "case of dilation " << c.dilations[0];
    EXPECT_EQ(conv.attrs.get_ints("pads"), c.live_pads) << "case of dilation " << c.dilations[0];
    Session cut_session(cut, {});
    Session plain(import_onnx_bytes(bytes), {});
    const Tensor x = random_tensor(plain.graph().type_of("x"), 33);
    const Tensor got = cut_session.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < want.elements(); ++i) {
      ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << "dilation " << c.dilations[0];
    }
  }
}

}  // namespace
}  // namespace nee
