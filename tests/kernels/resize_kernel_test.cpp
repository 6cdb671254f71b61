// The resize kernels (ONNX Resize, linear and nearest), compiled by the Builder into shared
// libraries (the default schedule, two seeded random valid points, and linear ones staged
// and unstaged) and called through HalideKernel, against compute_reference on every
// coordinate transformation and nearest_mode, up and down, at ragged scales and ranks 2
// to 5; OpenCL kernels go through nee-measure, the only process where PoCL may run, and a
// CUDA kernel is compiled. A nearest resize copies: its checks allow no error at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "core/error.h"
#include "core/resize_workload.h"
#include "core/workload_speed.h"
#include "runtime/reference/family_reference.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using test::CompiledKernels;
using test::Tolerance;

constexpr Tolerance kExact{0.0, 0.0};

std::map<std::string, Workload> cases() {
  std::map<std::string, Workload> all;
  // A segmentation head's upsampling of its score map, x8 (PyTorch's bilinear, align_corners=False).
  all["linear_up_pytorch"] = resize_workload_from_shape("1x3x7x6,size=56x48,coordinates=pytorch_half_pixel");
  all["linear_up_half_pixel_ragged"] = resize_workload_from_shape("1x2x5x7,size=13x10");
  all["linear_up_align_corners"] = resize_workload_from_shape("2x2x4x5,size=9x11,coordinates=align_corners");
  all["linear_down_asymmetric"] = resize_workload_from_shape("1x3x17x23,size=6x9,coordinates=asymmetric");
  all["linear_rank3_one_row"] = resize_workload_from_shape("4x1x9,size=1x20");
  // PyTorch's nearest (asymmetric, floor), and the other rounding modes on ragged scales.
  all["nearest_floor_asymmetric"] =
      resize_workload_from_shape("1x4x5x6,size=10x12,mode=nearest,coordinates=asymmetric,nearest_mode=floor");
  all["nearest_round_prefer_floor"] = resize_workload_from_shape("1x2x6x7,size=9x17,mode=nearest");
  all["nearest_round_prefer_ceil_down"] =
      resize_workload_from_shape("1x2x11x13,size=4x5,mode=nearest,nearest_mode=round_prefer_ceil");
  all["nearest_ceil_tf"] =
      resize_workload_from_shape("5x4,size=7x9,mode=nearest,coordinates=tf_half_pixel_for_nn,nearest_mode=ceil");
  all["nearest_rank5_tf"] = resize_workload_from_shape(
      "2x1x3x5x4,size=7x9,mode=nearest,coordinates=tf_half_pixel_for_nn,nearest_mode=round_prefer_floor");
  all["nearest_rank2"] = resize_workload_from_shape("3x5,size=7x2,mode=nearest,coordinates=align_corners");
  // Channel-blocked tensors between blocked convs: H and W before 16 lanes.
  all["nearest_blocked_lanes"] = resize_workload_from_shape(
      "1x2x5x7x16,size=10x14,mode=nearest,coordinates=asymmetric,nearest_mode=floor,lanes=16");
  all["linear_blocked_lanes"] =
      resize_workload_from_shape("2x1x6x5x16,size=13x9,coordinates=pytorch_half_pixel,lanes=16");
  return all;
}

bool is_nearest(const std::string& name) { return name.rfind("nearest", 0) == 0; }

const char* const kLinear[] = {"linear_up_pytorch", "linear_up_half_pixel_ragged", "linear_down_asymmetric",
                               "linear_blocked_lanes"};
const char* const kOpenClCases[] = {"linear_up_pytorch", "linear_down_asymmetric", "nearest_floor_asymmetric",
                                    "nearest_ceil_tf"};

class ResizeKernel : public test::CompiledKernelsTest<ResizeKernel> {
 public:
  static constexpr char kWorkDirTag[] = "resize";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    const Target opencl = host_target(TargetKind::opencl);
    std::mt19937_64 rng(2026);
    const auto all = cases();
    for (const auto& [name, w] : all) kernels.add_points(name, w, cpu, 2, rng);
    for (const char* name : kLinear) {
      kernels.add_changed_default(name, "staged", all.at(name), cpu, {{"stage", 1}});
      kernels.add_changed_default(name, "unstaged", all.at(name), cpu, {{"stage", 0}});
    }
    for (const char* name : kOpenClCases) kernels.add_default(std::string("opencl/") + name, all.at(name), opencl);
  }

  static Tolerance tolerance(const std::string& name) { return is_nearest(name) ? kExact : Tolerance{}; }
};

TEST_F(ResizeKernel, EveryCaseMatchesTheReference) {
  for (const auto& [name, w] : cases()) kernels().check_points(name, tolerance(name));
}

// Staging the W pass changes where the rows are interpolated, not what they hold.
TEST_F(ResizeKernel, LinearStagedAndUnstagedAgree) {
  for (const char* name : kLinear) {
    EXPECT_EQ(kernels().get(std::string(name) + "/staged").candidate.config.at("stage"), 1);
    EXPECT_EQ(kernels().get(std::string(name) + "/unstaged").candidate.config.at("stage"), 0);
  }
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner,
// which checks every output element against compute_reference. The taps' tables are
// computed on the host in doubles, so nearest picks the reference's pixel there too.
TEST_F(ResizeKernel, OpenClKernelsVerifiedByNeeMeasure) {
  for (const char* name : kOpenClCases) {
    const MeasureResult r = kernels().measure(std::string("opencl/") + name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    if (is_nearest(name)) {
      EXPECT_EQ(r.max_abs_error, 0) << name;
    }
  }
}

TEST_F(ResizeKernel, CpuKernelVerifiedByNeeMeasure) {
  const MeasureResult r = kernels().measure("nearest_round_prefer_floor/default");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_EQ(r.max_abs_error, 0);
  EXPECT_GT(r.median_us, 0);
}

// No GPU here: the default kernel must at least lower to CUDA (PTX in an object).
TEST(ResizeKernelCuda, DefaultKernelCompilesToAnObject) {
  const tuner_test::TempDir dir("resizecuda");
  const Workload w = resize_workload_from_shape("1x21x28x28,size=224x224,coordinates=pytorch_half_pixel");
  const Target cuda = host_target(TargetKind::cuda);
  const std::string object = dir.file("kernel.o");
  ASSERT_NO_THROW(compile_kernel_object(w, cuda, make_schedule_space(w, TargetKind::cuda)->default_config(),
                                        Builder::symbol_for(w, cuda), object));
  EXPECT_GT(std::filesystem::file_size(object), 1000u);
}

// The reference the kernels are checked against, on values worked out by hand: a 2x2
// plane doubled (half_pixel: output column x reads input coordinate x / 2 - 0.25).
TEST(ResizeReference, LinearAndNearestByHand) {
  Tensor x(TensorType{DType::f32, {1, 1, 2, 2}});
  const float in[] = {0, 4, 8, 12};  // [[0, 4], [8, 12]]
  std::copy(in, in + 4, x.data_as<float>());
  const auto values = [&](const std::string& shape) {
    const Workload w = resize_workload_from_shape(shape);
    Tensor out(w.output);
    compute_reference(w, {&x}, out);
    return std::vector<float>(out.data_as<float>(), out.data_as<float>() + out.elements());
  };
  // Columns at -0.25, 0.25, 0.75, 1.25 (the edges clamp); rows alike. One row (scale 0.5)
  // reads coordinate 0.5: the mean of the two, [4, 8].
  EXPECT_EQ(values("1x1x2x2,size=1x4"), (std::vector<float>{4, 5, 7, 8}));
  EXPECT_EQ(values("1x1x2x2,size=4x4"),
            (std::vector<float>{0, 1, 3, 4, 2, 3, 5, 6, 6, 7, 9, 10, 8, 9, 11, 12}));
  // Nearest, asymmetric floor: x / 2 floored.
  EXPECT_EQ(values("1x1x2x2,size=2x4,mode=nearest,coordinates=asymmetric,nearest_mode=floor"),
            (std::vector<float>{0, 0, 4, 4, 8, 8, 12, 12}));
}

TEST(ResizeWorkload, ValidatesItsAttributes) {
  const TensorType x{DType::f32, {1, 3, 4, 4}};
  const auto error_of = [](const TensorType& in, const ResizeAttrs& a, const std::vector<int64_t>& out) {
    try {
      make_resize_workload(in, a, out);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const ResizeAttrs linear{"linear", "half_pixel", "", 2, 2};
  EXPECT_EQ(error_of(x, linear, {1, 3, 8, 8}), "no error");
  EXPECT_NE(error_of(x, ResizeAttrs{"cubic", "half_pixel", "", 2, 2}, {1, 3, 8, 8}).find("mode 'cubic'"),
            std::string::npos);
  EXPECT_NE(error_of(x, ResizeAttrs{"linear", "tf_crop_and_resize", "", 2, 2}, {1, 3, 8, 8})
                .find("coordinate transformation 'tf_crop_and_resize'"),
            std::string::npos);
  EXPECT_NE(error_of(x, ResizeAttrs{"nearest", "half_pixel", "round", 2, 2}, {1, 3, 8, 8}).find("nearest_mode"),
            std::string::npos);
  EXPECT_NE(error_of(x, linear, {1, 6, 8, 8}).find("changes dim 1"), std::string::npos);
  // ONNX makes floor(in * scale) elements: a scale of 2 makes 8 of 4, not 9.
  EXPECT_NE(error_of(x, linear, {1, 3, 8, 9}).find("with 8 elements in dim 3, not 9"), std::string::npos);
  // tf_half_pixel_for_nn maps an outer dim's index x to x + 0.5: only rounding down keeps it.
  EXPECT_NE(error_of(x, ResizeAttrs{"nearest", "tf_half_pixel_for_nn", "ceil", 2, 2}, {1, 3, 8, 8})
                .find("moves the outer dims"),
            std::string::npos);
  EXPECT_EQ(error_of(x, ResizeAttrs{"nearest", "tf_half_pixel_for_nn", "round_prefer_floor", 2, 2}, {1, 3, 8, 8}),
            "no error");
  EXPECT_EQ(error_of(TensorType{DType::f32, {4, 4}}, ResizeAttrs{"linear", "tf_half_pixel_for_nn", "", 2, 2}, {8, 8}),
            "no error");
  EXPECT_NE(error_of(x, ResizeAttrs{"linear", "half_pixel", "", 0, 2}, {1, 3, 8, 8}).find("positive"),
            std::string::npos);
  EXPECT_NE(error_of(TensorType{DType::i64, {1, 3, 4, 4}}, linear, {1, 3, 8, 8}).find("take f32"), std::string::npos);
  EXPECT_NE(error_of(TensorType{DType::f32, {4}}, linear, {8}).find("fewer"), std::string::npos);
  // Linear interpolation never reads nearest_mode: it is not part of the key.
  EXPECT_EQ(make_resize_workload(x, ResizeAttrs{"linear", "half_pixel", "floor", 2, 2}, {1, 3, 8, 8}).key(),
            make_resize_workload(x, linear, {1, 3, 8, 8}).key());
  const Workload w = resize_workload_from_shape("1x21x28x28,size=224x224");
  EXPECT_EQ(w.key(), Workload::from_json(w.to_json()).key());
  EXPECT_EQ(resize_attrs(w).scale_h, 8.0);
  EXPECT_THROW(resize_workload_from_shape("1x3x4x4"), Error);
  EXPECT_THROW(resize_workload_from_shape("1x3x4x4,size=8"), Error);
  EXPECT_THROW(resize_workload_from_shape("1x3x4x4,size=8x8,mode=area"), Error);
  // Bytes of each output written once and read once, per second.
  EXPECT_EQ(speed_text(w, 1000.0), "8.4 GB/s");
}

}  // namespace
}  // namespace nee
