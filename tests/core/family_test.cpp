// The family table: one row per family of NEE_FAMILIES, in its order, and `nee-tune
// --op`'s families parse their shape texts into workloads of their own family.
#include "core/family.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/conv2d_workload.h"
#include "core/error.h"

namespace nee {
namespace {

TEST(Family, RowsFollowTheListAndNameTheirOps) {
  ASSERT_EQ(families().size(), kFamilyCount);
  for (size_t i = 0; i < families().size(); ++i) {
    const Family& f = families()[i];
    EXPECT_EQ(static_cast<size_t>(f.id), i) << f.name;
    EXPECT_EQ(&family_named(f.name), &f);
    EXPECT_TRUE(f.flops && f.reduction_length) << f.name;
    EXPECT_TRUE(f.from_shape && !f.shape_help.empty()) << f.name << ": every family has a shape parser and its help";
    EXPECT_LE(f.loop_nest_inputs, 2u) << f.name;
  }
}

TEST(Family, UnknownFamiliesAreRefusedWithTheKnownOnes) {
  Workload w;
  w.op = "conv3d";
  try {
    family_of(w);
    ADD_FAILURE() << "an unknown family was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown operator family 'conv3d' (known: matmul, conv2d, elementwise"),
              std::string::npos)
        << e.what();
  }
}

// Every family's shape text gives a workload of that family whose figures are those of
// the shape (FLOPs, reduction length, speed unit).
TEST(Family, ShapeTextsGiveWorkloadsOfTheirFamily) {
  EXPECT_EQ(family_names(), (std::vector<std::string>{"matmul", "conv2d", "elementwise", "pool2d", "softmax",
                                                      "layernorm", "strided_copy", "attention", "resize"}));

  const Workload mm = family_named("matmul").from_shape("64x32x16");
  EXPECT_EQ(mm.op, "matmul");
  EXPECT_DOUBLE_EQ(mm.flops(), 2.0 * 64 * 32 * 16);
  EXPECT_EQ(family_of(mm).reduction_length(mm), 32);
  EXPECT_EQ(family_of(mm).speed_unit, SpeedUnit::gflops);

  const Workload conv = family_named("conv2d").from_shape("1x8x10x10,4x3x3,p1");
  EXPECT_EQ(conv.op, "conv2d");
  EXPECT_DOUBLE_EQ(conv.flops(), 2.0 * 4 * 10 * 10 * 8 * 9);
  EXPECT_EQ(family_of(conv).reduction_length(conv), 8 * 9);

  // Linear interpolation weighs 4 inputs per output (3 weighed pairs, 9 FLOPs); nearest copies.
  const Workload up = family_named("resize").from_shape("1x2x3x5,size=6x10");
  EXPECT_EQ(up.op, "resize");
  EXPECT_EQ(up.output.shape, (std::vector<int64_t>{1, 2, 6, 10}));
  EXPECT_DOUBLE_EQ(up.flops(), 9.0 * 2 * 6 * 10);
  EXPECT_EQ(family_of(up).reduction_length(up), 4);
  EXPECT_EQ(family_of(up).speed_unit, SpeedUnit::gbytes);
  const Workload nearest = family_named("resize").from_shape("1x2x3x5,size=6x10,mode=nearest");
  EXPECT_EQ(nearest.flops(), 0.0);
  EXPECT_EQ(family_of(nearest).reduction_length(nearest), 0);
  // Channel-blocked: H and W before the lanes; the key names the lanes only where there
  // are some, so resizes recorded before them keep their keys.
  const Workload lanes = family_named("resize").from_shape("1x2x3x5x16,size=6x10,mode=nearest,lanes=16");
  EXPECT_EQ(lanes.output.shape, (std::vector<int64_t>{1, 2, 6, 10, 16}));
  EXPECT_NE(lanes.key().find("\"lanes\":16"), std::string::npos) << lanes.key();
  EXPECT_EQ(nearest.key().find("lanes"), std::string::npos) << nearest.key();
  EXPECT_THROW(family_named("resize").from_shape("1x2x3x5x8,size=6x10,lanes=16"), Error);

  const Workload copy = family_named("strided_copy").from_shape("4x6,perm=1x0");
  EXPECT_EQ(copy.op, "strided_copy");
  EXPECT_EQ(copy.flops(), 0.0);
  EXPECT_EQ(family_of(copy).reduction_length(copy), 0);
  EXPECT_EQ(family_of(copy).speed_unit, SpeedUnit::gbytes);

  const Workload bias_relu = family_named("elementwise").from_shape("8x16+16:add(x0,x1); relu(t0)");
  EXPECT_EQ(bias_relu.op, "elementwise");
  EXPECT_EQ(bias_relu.output.shape, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(bias_relu.inputs[1].shape, (std::vector<int64_t>{16}));
  EXPECT_DOUBLE_EQ(bias_relu.flops(), 2.0 * 8 * 16);

  const Workload pool = family_named("pool2d").from_shape("1x4x9x9,kernel=3x3,strides=2x2,pads=1x1x1x1");
  EXPECT_EQ(pool.output.shape, (std::vector<int64_t>{1, 4, 5, 5}));
  EXPECT_EQ(family_of(pool).reduction_length(pool), 9);
  const Workload global = family_named("pool2d").from_shape("2x8x7x7,kernel=global,kind=average");
  EXPECT_EQ(global.output.shape, (std::vector<int64_t>{2, 8, 1, 1}));
  EXPECT_EQ(family_of(global).reduction_length(global), 49);

  const Workload softmax = family_named("softmax").from_shape("4x3x10");
  EXPECT_EQ(family_of(softmax).reduction_length(softmax), 10);
  EXPECT_EQ(family_of(softmax).reduction_length(family_named("softmax").from_shape("4x3x10,axis=1")), 3);

  const Workload norm = family_named("layernorm").from_shape("6x32,bias=0");
  EXPECT_EQ(norm.inputs.size(), 2u);
  EXPECT_EQ(norm.inputs[1].shape, (std::vector<int64_t>{32}));
  EXPECT_EQ(family_of(norm).reduction_length(norm), 32);
  EXPECT_EQ(family_named("layernorm").from_shape("2x6x32,axis=1").inputs.size(), 3u);

  // Per score: 2 x (D + Dv) for the two products, 6 for scaling, mask and softmax; and a
  // division per output element.
  const Workload attention = family_named("attention").from_shape("2x5x7x4,dv=3,mask=causal");
  EXPECT_EQ(attention.inputs.size(), 4u);
  EXPECT_EQ(attention.inputs[3].shape, (std::vector<int64_t>{5, 7}));
  EXPECT_DOUBLE_EQ(attention.flops(), 2.0 * 5 * 7 * (2 * (4 + 3) + 6) + 2 * 5 * 3);
  EXPECT_EQ(family_of(attention).reduction_length(attention), 7 + 4);
}

// Malformed shape texts are refused with the text and the part at fault named.
TEST(Family, MalformedShapeTextsNameTheirFault) {
  const auto error_of = [](const char* family, const char* text) -> std::string {
    try {
      family_named(family).from_shape(text);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(error_of("softmax", "4x3,axis=3"), "softmax axis 3 is out of range for f32[4,3]");
  EXPECT_EQ(error_of("softmax", "4x3,axes=1"), "bad softmax shape '4x3,axes=1': 'axes=1' is not one of axis=");
  EXPECT_EQ(error_of("layernorm", "4x3,bias=2"), "bad layernorm shape '4x3,bias=2': bias '2' is not one of 0, 1");
  EXPECT_EQ(error_of("pool2d", "1x4x9x9"), "bad pool2d shape '1x4x9x9': kernel=KHxKW or kernel=global is missing");
  EXPECT_EQ(error_of("pool2d", "1x4x9x9,kernel=3"), "bad pool2d shape '1x4x9x9,kernel=3': kernel has 1 values, not 2");
  EXPECT_EQ(error_of("pool2d", "4x9x9,kernel=3x3"), "bad pool2d shape '4x9x9,kernel=3x3': the input is NxCxHxW");
  EXPECT_EQ(error_of("elementwise", "8x16+16"),
            "bad elementwise shape '8x16+16': expected the inputs' shapes, ':' and the program");
  EXPECT_EQ(error_of("elementwise", "8x16+4:add(x0,x1)"), "shapes [8,16] and [4] do not broadcast");
  EXPECT_EQ(error_of("strided_copy", "4xq"),
            "bad strided_copy shape '4xq': it does not start with a shape of integers joined by x (e.g. 8x128)");
}

// One workload per family, as `nee-tune --op` makes it, and variants that are not what
// their inputs make.
std::vector<Workload> samples() {
  return {family_named("matmul").from_shape("2x8x16x4"),
          family_named("conv2d").from_shape("1x16x12x12,32x3x3,p1"),
          family_named("elementwise").from_shape("8x16+16:add(x0,x1); relu(t0)"),
          family_named("pool2d").from_shape("1x4x9x9,kernel=3x3,strides=2x2,pads=1x1x1x1,ceil_mode=1"),
          family_named("softmax").from_shape("4x3x10,axis=1"),
          family_named("layernorm").from_shape("6x32"),
          family_named("strided_copy").from_shape("16x8x12,perm=2x0x1"),
          family_named("attention").from_shape("2x5x7x4,layout=sgd,mask=rows"),
          family_named("resize").from_shape("1x3x5x7,size=10x3,coordinates=align_corners")};
}

TEST(Family, EveryFamilysOwnWorkloadsAreWhatTheirInputsMake) {
  ASSERT_EQ(samples().size(), kFamilyCount);
  for (const Workload& w : samples()) EXPECT_NO_THROW(require_family_made(w)) << w.key();
  // The layouts the runtime gives a conv: blocked weights, blocked activations, Winograd.
  const Workload conv = samples()[1];
  EXPECT_NO_THROW(require_family_made(conv2d_with_blocked_weights(conv)));
  EXPECT_NO_THROW(require_family_made(conv2d_runtime_layout(conv, true)));
  const Workload depthwise = family_named("conv2d").from_shape("1x32x12x12,32x3x3,p1,g32");
  EXPECT_NE(conv2d_attrs(conv2d_runtime_layout(depthwise, true)).input_block, 0);
  EXPECT_NO_THROW(require_family_made(conv2d_runtime_layout(depthwise, true)));
  for (int64_t tile : {2, 4}) {
    EXPECT_NO_THROW(require_family_made(conv2d_with_winograd(conv2d_runtime_layout(conv, true), tile)));
  }
}

// What fuzzing `db import` found for matmul, for every family: a workload from outside
// whose output, or inputs, are not what its family makes of them is refused by name.
TEST(Family, WorkloadsTheirInputsDoNotMakeAreRefused) {
  using ::testing::HasSubstr;
  using ::testing::ThrowsMessage;
  for (const Workload& sample : samples()) {
    Workload longer = sample;
    longer.output.shape.push_back(1);
    EXPECT_THAT([&] { require_family_made(longer); },
                ThrowsMessage<Error>(HasSubstr(sample.op + " workload " + longer.key() + " is not")));
    Workload wider = sample;
    wider.output.shape.back() += 1;
    EXPECT_THAT([&] { require_family_made(wider); }, ThrowsMessage<Error>(HasSubstr(" is not ")));
    Workload fewer = sample;
    fewer.inputs.pop_back();
    EXPECT_THAT([&] { require_family_made(fewer); }, ThrowsMessage<Error>(HasSubstr("is not one NEE makes")));
  }
  Workload matmul = samples()[0];  // the finding: B's batch dim missing from the output
  matmul.output.shape.erase(matmul.output.shape.begin());
  EXPECT_THAT([&] { require_family_made(matmul); },
              ThrowsMessage<Error>(
                  HasSubstr("is not what its inputs make (matmul(f32[2,8,16],f32[2,16,4])->f32[2,8,4]")));
  Workload blocked = conv2d_runtime_layout(samples()[1], true);
  blocked.inputs[0].shape = {1, 16, 12, 12};  // NCHW input where the attributes say blocked
  EXPECT_THAT([&] { require_family_made(blocked); },
              ThrowsMessage<Error>(HasSubstr("is not a channel-blocked activation shape")));
}

}  // namespace
}  // namespace nee
