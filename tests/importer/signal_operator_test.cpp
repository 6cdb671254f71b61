// The signal operators (HannWindow, HammingWindow, BlackmanWindow, DFT, STFT,
// MelWeightMatrix) and Det and ReverseSequence. Expected values are worked out by hand
// in the comments or computed here the plain way: windows from their cosine sums, DFTs
// as direct sums, determinants by cofactor expansion.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>

#include "core/error.h"
#include "import_and_run.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/staged_session.h"

namespace nee {
namespace {

using test::doubles_of;
using test::ints_of;
using test::make_f32;
using test::make_f64;
using test::make_i64;
using test::OnnxModelBuilder;
using test::run_model;
using test::set_attr;
using test::values_of;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

constexpr double kPi = 3.14159265358979323846;
using Complex = std::complex<double>;

Tensor i32_scalar(int32_t value) {
  Tensor t(DType::i32, {});
  *t.data_as<int32_t>() = value;
  return t;
}

auto near(const std::vector<float>& expected, float tolerance = 1e-5f) {
  return Pointwise(FloatNear(tolerance), expected);
}

StagedSession staged(const OnnxModelBuilder& m) {
  return StagedSession(load_staged_onnx_bytes(m.bytes()),
                       [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, SessionOptions{optimize_graph});
}

// ---- Windows ----

OnnxModelBuilder window_model(const std::string& op, const Tensor& size, int64_t periodic,
                              int64_t output_datatype = onnx::TensorProto::FLOAT) {
  OnnxModelBuilder m;
  m.initializer("size", size);
  onnx::NodeProto& n = m.node(op, {"size"}, {"w"});
  set_attr(n, "periodic", periodic);
  set_attr(n, "output_datatype", output_datatype);
  m.output("w", static_cast<int32_t>(output_datatype));
  return m;
}

Tensor window(const std::string& op, int64_t size, int64_t periodic) {
  const Tensor w = test::run_single_output(window_model(op, make_i64({}, {size}), periodic), {});
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{size}));
  return w;
}

// N = 4 (periodic 4, or symmetric 5) puts the samples at angles 0, pi/2, pi, 3 pi/2 (and
// 2 pi), where the cosines are 1, 0, -1, 0 (and 1):
//   Hann     0.5 - 0.5 cos:                     0, 0.5, 1, 0.5 (, 0)
//   Hamming  25/46 - 21/46 cos:                 4/46, 25/46, 1, 25/46 (, 4/46)
//   Blackman 0.42 - 0.5 cos(a) + 0.08 cos(2a):  0, 0.34, 1, 0.34 (, 0)
TEST(SignalWindows, PeriodicAndSymmetricAtQuarterTurns) {
  const float h = 4.0f / 46, m = 25.0f / 46;
  EXPECT_THAT(values_of(window("HannWindow", 4, 1)), near({0, 0.5f, 1, 0.5f}));
  EXPECT_THAT(values_of(window("HannWindow", 5, 0)), near({0, 0.5f, 1, 0.5f, 0}));
  EXPECT_THAT(values_of(window("HammingWindow", 4, 1)), near({h, m, 1, m}));
  EXPECT_THAT(values_of(window("HammingWindow", 5, 0)), near({h, m, 1, m, h}));
  EXPECT_THAT(values_of(window("BlackmanWindow", 4, 1)), near({0, 0.34f, 1, 0.34f}));
  EXPECT_THAT(values_of(window("BlackmanWindow", 5, 0)), near({0, 0.34f, 1, 0.34f, 0}));
}

// A longer window against its defining sum, at angles that are no quarter turns.
TEST(SignalWindows, LongWindowsFollowTheirCosineSums) {
  for (int64_t periodic : {0, 1}) {
    const int64_t size = 11, period = periodic ? size : size - 1;
    std::vector<float> hann, blackman;
    for (int64_t n = 0; n < size; ++n) {
      const double a = 2 * kPi * static_cast<double>(n) / static_cast<double>(period);
      hann.push_back(static_cast<float>(0.5 - 0.5 * std::cos(a)));
      blackman.push_back(static_cast<float>(0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a)));
    }
    EXPECT_THAT(values_of(window("HannWindow", size, periodic)), near(hann));
    EXPECT_THAT(values_of(window("BlackmanWindow", size, periodic)), near(blackman));
  }
}

// A symmetric window of one sample has no period to divide by: [1], as numpy makes it.
TEST(SignalWindows, OneSampleSymmetricWindowIsOne) {
  EXPECT_THAT(values_of(window("HammingWindow", 1, 0)), ElementsAre(1));
}

// Hann over 3 samples, periodic: 0.5 - 0.5 cos(2 pi n / 3) = 0, 0.75, 0.75.
TEST(SignalWindows, DoubleOutputFromAnInt32Size) {
  const Tensor w = test::run_single_output(window_model("HannWindow", i32_scalar(3), 1, onnx::TensorProto::DOUBLE), {});
  ASSERT_EQ(w.dtype(), DType::f64);
  EXPECT_THAT(doubles_of(w), Pointwise(DoubleNear(1e-12), std::vector<double>{0, 0.75, 0.75}));
}

TEST(SignalWindows, SizeFromAGraphInputRunsInStages) {
  OnnxModelBuilder m;
  m.input("size", onnx::TensorProto::INT64, {}).output("w");
  m.node("HannWindow", {"size"}, {"w"});
  EXPECT_THAT(test::import_error(m), HasSubstr("input 0 (size, 'size') is not a constant"));
  StagedSession session = staged(m);
  EXPECT_THAT(values_of(session.run({{"size", make_i64({}, {4})}}).at("w")), near({0, 0.5f, 1, 0.5f}));
  EXPECT_THAT(values_of(session.run({{"size", make_i64({}, {2})}}).at("w")), near({0, 1}));
}

TEST(SignalWindows, BadSizesAndAttributesAreClearErrors) {
  EXPECT_THAT(test::import_error(window_model("HannWindow", make_i64({}, {0}), 1)),
              HasSubstr("size is 0; a window needs at least one sample"));
  EXPECT_THAT(test::import_error(window_model("HannWindow", make_i64({}, {4}), 2)),
              HasSubstr("periodic is 2; it must be 0 or 1"));
  EXPECT_THAT(test::import_error(window_model("BlackmanWindow", make_i64({}, {4}), 1, onnx::TensorProto::INT64)),
              HasSubstr("output_datatype i64 is not supported"));
  EXPECT_THAT(test::import_error(window_model("HannWindow", make_f32({}, {4}), 1)),
              HasSubstr("input 0 'size' is tensor(float), which HannWindow"));
}

// ---- DFT ----

// y[k] = sum_t x[t] e^(-2 pi i k t / n) over t < min(len(x), n) for k < n, written out;
// the inverse with e^(+...) and 1 / n.
std::vector<Complex> naive_dft(const std::vector<Complex>& x, int64_t n, bool inverse = false) {
  const size_t used = std::min(x.size(), static_cast<size_t>(n));
  std::vector<Complex> y;
  for (int64_t k = 0; k < n; ++k) {
    Complex sum = 0;
    for (size_t t = 0; t < used; ++t) {
      const double turns = static_cast<double>(k * static_cast<int64_t>(t)) / static_cast<double>(n);
      const double angle = (inverse ? 2 : -2) * kPi * turns;
      sum += x[t] * std::polar(1.0, angle);
    }
    y.push_back(inverse ? sum / static_cast<double>(n) : sum);
  }
  return y;
}

// Interleaved real and imaginary parts of the first `count` values, as DFT writes them.
std::vector<float> interleaved(const std::vector<Complex>& values, size_t count) {
  std::vector<float> out;
  for (size_t i = 0; i < count; ++i) out.insert(out.end(), {float(values[i].real()), float(values[i].imag())});
  return out;
}

struct DftAttrs {
  int64_t axis = 1, inverse = 0, onesided = 0;
  int64_t dft_length = 0;  // 0: not given
};

OnnxModelBuilder dft_model(const std::vector<int64_t>& shape, const DftAttrs& a) {
  OnnxModelBuilder m;
  m.input("x", shape).output("y");
  std::vector<std::string> inputs = {"x"};
  if (a.dft_length) {
    m.initializer("dft_length", make_i64({}, {a.dft_length}));
    inputs.push_back("dft_length");
  }
  onnx::NodeProto& n = m.node("DFT", inputs, {"y"});
  set_attr(n, "axis", a.axis);
  set_attr(n, "inverse", a.inverse);
  set_attr(n, "onesided", a.onesided);
  return m;
}

Tensor dft(const Tensor& x, const DftAttrs& a) { return run_model(dft_model(x.shape(), a), {{"x", x}}).at("y"); }

// x = 1, 2, 3, 4: y[0] = 10; y[1] = 1 - 2i - 3 + 4i = -2 + 2i; y[2] = 1 - 2 + 3 - 4 = -2;
// y[3] = -2 - 2i. Onesided keeps 4 / 2 + 1 = 3 of them.
TEST(SignalDFT, FourPointsByHand) {
  const Tensor x = make_f32({1, 4, 1}, {1, 2, 3, 4});
  Tensor y = dft(x, {});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 4, 2}));
  EXPECT_THAT(values_of(y), near({10, 0, -2, 2, -2, 0, -2, -2}));
  DftAttrs onesided;
  onesided.onesided = 1;
  y = dft(x, onesided);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_THAT(values_of(y), near({10, 0, -2, 2, -2, 0}));
}

// The inverse of the spectrum above gives 1, 2, 3, 4 back (imaginary parts 0).
TEST(SignalDFT, InverseOfAComplexSpectrumByHand) {
  DftAttrs inverse;
  inverse.inverse = 1;
  const Tensor y = dft(make_f32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}), inverse);
  EXPECT_THAT(values_of(y), near({1, 0, 2, 0, 3, 0, 4, 0}));
}

// dft_length 2 reads 1, 2 only: 3 and -1. dft_length 6 pads with two zeros: y[0] = 10,
// y[3] = 1 - 2 + 3 - 4 = -2, the others by the direct sum.
TEST(SignalDFT, DftLengthTruncatesOrPads) {
  const Tensor x = make_f32({1, 4, 1}, {1, 2, 3, 4});
  DftAttrs a;
  a.dft_length = 2;
  EXPECT_THAT(values_of(dft(x, a)), near({3, 0, -1, 0}));
  a.dft_length = 6;
  const std::vector<float> y = values_of(dft(x, a));
  ASSERT_EQ(y.size(), 12u);
  EXPECT_THAT((std::vector<float>{y[0], y[1], y[6], y[7]}), near({10, 0, -2, 0}));
  EXPECT_THAT(y, near(interleaved(naive_dft({1, 2, 3, 4}, 6), 6), 1e-5f));
}

// A [2, 5, 3, 1] signal transformed along each signal axis, every line against the direct
// sum; axis -2 is the last signal axis.
TEST(SignalDFT, EachLineOfAMultiDimensionalSignal) {
  const int64_t batch = 2, rows = 5, cols = 3;
  std::vector<float> v;
  for (int64_t i = 0; i < batch * rows * cols; ++i) v.push_back(static_cast<float>(std::sin(0.7 * i) + 0.1 * i));
  const Tensor x = make_f32({batch, rows, cols, 1}, v);
  const auto at = [&](int64_t b, int64_t r, int64_t c) { return v[(b * rows + r) * cols + c]; };
  DftAttrs along_rows;
  const std::vector<float> y1 = values_of(dft(x, along_rows));
  DftAttrs along_cols;
  along_cols.axis = -2;
  const std::vector<float> y2 = values_of(dft(x, along_cols));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<Complex> line;
      for (int64_t r = 0; r < rows; ++r) line.push_back(at(b, r, c));
      const std::vector<Complex> expected = naive_dft(line, rows);
      for (int64_t k = 0; k < rows; ++k) {
        const size_t o = static_cast<size_t>(((b * rows + k) * cols + c) * 2);
        EXPECT_NEAR(y1[o], expected[k].real(), 1e-4);
        EXPECT_NEAR(y1[o + 1], expected[k].imag(), 1e-4);
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<Complex> line;
      for (int64_t c = 0; c < cols; ++c) line.push_back(at(b, r, c));
      const std::vector<Complex> expected = naive_dft(line, cols);
      for (int64_t k = 0; k < cols; ++k) {
        const size_t o = static_cast<size_t>(((b * rows + r) * cols + k) * 2);
        EXPECT_NEAR(y2[o], expected[k].real(), 1e-4);
        EXPECT_NEAR(y2[o + 1], expected[k].imag(), 1e-4);
      }
    }
  }
}

// A complex f64 signal of 7 points, forward against the direct sum and back again.
TEST(SignalDFT, DoubleComplexRoundTrip) {
  std::vector<Complex> signal;
  std::vector<double> parts;
  for (int t = 0; t < 7; ++t) {
    signal.emplace_back(std::cos(1.3 * t) + t, std::sin(0.4 * t) - 1);
    parts.insert(parts.end(), {signal.back().real(), signal.back().imag()});
  }
  const auto model = [](int64_t inverse) {
    OnnxModelBuilder m;
    m.input("x", onnx::TensorProto::DOUBLE, {"1", "7", "2"}).output("y", onnx::TensorProto::DOUBLE);
    set_attr(m.node("DFT", {"x"}, {"y"}), "inverse", inverse);
    return m;
  };
  const Tensor spectrum = run_model(model(0), {{"x", make_f64({1, 7, 2}, parts)}}).at("y");
  ASSERT_EQ(spectrum.dtype(), DType::f64);
  std::vector<double> expected;
  for (const Complex& c : naive_dft(signal, 7)) expected.insert(expected.end(), {c.real(), c.imag()});
  EXPECT_THAT(doubles_of(spectrum), Pointwise(DoubleNear(1e-12), expected));
  const Tensor back = run_model(model(1), {{"x", spectrum}}).at("y");
  EXPECT_THAT(doubles_of(back), Pointwise(DoubleNear(1e-12), parts));
}

TEST(SignalDFT, DftLengthFromAGraphInputRunsInStages) {
  OnnxModelBuilder m;
  m.input("x", {1, 4, 1}).input("n", onnx::TensorProto::INT64, {}).output("y");
  m.node("DFT", {"x", "n"}, {"y"});
  EXPECT_THAT(test::import_error(m), HasSubstr("(dft_length, 'n') is not a constant"));
  StagedSession session = staged(m);
  const Tensor x = make_f32({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_THAT(values_of(session.run({{"x", x}, {"n", make_i64({}, {2})}}).at("y")), near({3, 0, -1, 0}));
}

TEST(SignalDFT, BadShapesAndAttributesAreClearErrors) {
  DftAttrs last_axis;
  last_axis.axis = -1;
  EXPECT_THAT(test::import_error(dft_model({1, 4, 1}, last_axis)), HasSubstr("axis names the last dim"));
  DftAttrs far_axis;
  far_axis.axis = 3;
  EXPECT_THAT(test::import_error(dft_model({1, 4, 1}, far_axis)), HasSubstr("axis 3 is out of range for rank 3"));
  EXPECT_THAT(test::import_error(dft_model({1, 4}, {})), HasSubstr("must be [batch, signal dims..., 1 or 2]"));
  EXPECT_THAT(test::import_error(dft_model({1, 4, 3}, {})), HasSubstr("must be [batch, signal dims..., 1 or 2]"));
  DftAttrs onesided;
  onesided.onesided = 1;
  EXPECT_THAT(test::import_error(dft_model({1, 4, 2}, onesided)), HasSubstr("onesided output needs a real input"));
  onesided.inverse = 1;
  EXPECT_THAT(test::import_error(dft_model({1, 4, 1}, onesided)),
              HasSubstr("an inverse onesided DFT (IRFFT) needs a complex input"));
  DftAttrs negative_length;
  negative_length.dft_length = -3;
  EXPECT_THAT(test::import_error(dft_model({1, 4, 1}, negative_length)), HasSubstr("dft_length is -3"));
}

// ---- STFT ----

struct StftCase {
  std::vector<int64_t> signal_shape;
  int64_t frame_step = 1;
  std::vector<float> window;  // empty: none
  int64_t frame_length = 0;   // 0: not given
  int64_t onesided = 1;
};

OnnxModelBuilder stft_model(const StftCase& c) {
  OnnxModelBuilder m;
  m.input("signal", c.signal_shape).output("y");
  m.initializer("step", make_i64({}, {c.frame_step}));
  std::vector<std::string> inputs = {"signal", "step", "", ""};
  if (!c.window.empty()) {
    m.initializer("window", make_f32({static_cast<int64_t>(c.window.size())}, c.window));
    inputs[2] = "window";
  }
  if (c.frame_length) {
    m.initializer("frame_length", make_i64({}, {c.frame_length}));
    inputs[3] = "frame_length";
  }
  while (inputs.back().empty()) inputs.pop_back();
  set_attr(m.node("STFT", inputs, {"y"}), "onesided", c.onesided);
  return m;
}

// Signal 1..6 in frames of 4, 2 apart: 1, 2, 3, 4 (as in FourPointsByHand: 10, -2 + 2i,
// -2) and 3, 4, 5, 6 (18; 3 - 4i - 5 + 6i = -2 + 2i; 3 - 4 + 5 - 6 = -2).
TEST(SignalSTFT, TwoFramesByHand) {
  StftCase c;
  c.signal_shape = {1, 6, 1};
  c.frame_step = 2;
  c.frame_length = 4;
  const Tensor y = run_model(stft_model(c), {{"signal", make_f32({1, 6, 1}, {1, 2, 3, 4, 5, 6})}}).at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 3, 2}));
  EXPECT_THAT(values_of(y), near({10, 0, -2, 2, -2, 0, 18, 0, -2, 2, -2, 0}));
}

// Two batches of 21 samples, frames of 8 every 4 (frames = (21 - 8) / 4 + 1 = 4), windowed
// or not, one- or two-sided: each frame against the direct sum of its windowed samples.
TEST(SignalSTFT, WindowedFramesMatchTheDirectSum) {
  const int64_t batch = 2, length = 21, frame = 8, step = 4, frames = 4;
  std::vector<float> signal;
  for (int64_t i = 0; i < batch * length; ++i) signal.push_back(static_cast<float>(std::cos(0.3 * i) * (1 + i % 5)));
  const std::vector<float> window = {0.1f, 0.4f, 0.8f, 1, 1, 0.8f, 0.4f, 0.1f};
  for (bool windowed : {false, true}) {
    for (int64_t onesided : {0, 1}) {
      StftCase c;
      c.signal_shape = {batch, length, 1};
      c.frame_step = step;
      if (windowed) c.window = window;
      if (!windowed || onesided) c.frame_length = frame;  // with a window, given or not
      c.onesided = onesided;
      const Tensor y = run_model(stft_model(c), {{"signal", make_f32({batch, length, 1}, signal)}}).at("y");
      const int64_t bins = onesided ? frame / 2 + 1 : frame;
      ASSERT_EQ(y.shape(), (std::vector<int64_t>{batch, frames, bins, 2}));
      std::vector<float> expected;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t f = 0; f < frames; ++f) {
          std::vector<Complex> samples;
          for (int64_t t = 0; t < frame; ++t) {
            samples.emplace_back(signal[b * length + f * step + t] * (windowed ? window[t] : 1.0f));
          }
          const std::vector<float> spectrum = interleaved(naive_dft(samples, frame), static_cast<size_t>(bins));
          expected.insert(expected.end(), spectrum.begin(), spectrum.end());
        }
      }
      EXPECT_THAT(values_of(y), near(expected, 1e-4f)) << "windowed " << windowed << " onesided " << onesided;
    }
  }
}

// A complex signal (onesided 0): frame 1 + i, 2, 0, -i over 4 points; y[k] = sum x[t]
// (-i)^(k t): y[0] = 3; y[1] = (1 + i) + 2(-i) + (-i)(i) = 2 - i;
// y[2] = (1 + i) - 2 - (-i) = -1 + 2i; y[3] = (1 + i) + 2i + (-i)(-i) = 3i.
TEST(SignalSTFT, ComplexSignalByHand) {
  StftCase c;
  c.signal_shape = {1, 4, 2};
  c.frame_step = 1;
  c.frame_length = 4;
  c.onesided = 0;
  const Tensor y = run_model(stft_model(c), {{"signal", make_f32({1, 4, 2}, {1, 1, 2, 0, 0, 0, 0, -1})}}).at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 2}));
  EXPECT_THAT(values_of(y), near({3, 0, 2, -1, -1, 2, 0, 3}));
}

TEST(SignalSTFT, FrameStepFromAGraphInputRunsInStages) {
  OnnxModelBuilder m;
  m.input("signal", {1, 6, 1}).input("step", onnx::TensorProto::INT64, {}).output("y");
  m.initializer("frame_length", make_i64({}, {4}));
  m.node("STFT", {"signal", "step", "", "frame_length"}, {"y"});
  EXPECT_THAT(test::import_error(m), HasSubstr("(frame_step, 'step') is not a constant"));
  StagedSession session = staged(m);
  const Tensor y =
      session.run({{"signal", make_f32({1, 6, 1}, {1, 2, 3, 4, 5, 6})}, {"step", make_i64({}, {2})}}).at("y");
  EXPECT_THAT(values_of(y), near({10, 0, -2, 2, -2, 0, 18, 0, -2, 2, -2, 0}));  // as TwoFramesByHand
}

TEST(SignalSTFT, BadFramesAreClearErrors) {
  StftCase c;
  c.signal_shape = {1, 6, 1};
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("STFT needs a window or a frame_length"));
  c.window = {1, 1, 1};
  c.frame_length = 4;
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("frame_length is 4 but the window holds 3 samples"));
  c.window.clear();
  c.frame_length = 7;
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("frame_length is 7; it must lie in [1, 6]"));
  c.frame_length = 4;
  c.frame_step = 0;
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("frame_step is 0; it must be positive"));
  c.frame_step = 1;
  c.signal_shape = {1, 6, 2};
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("onesided output needs a real signal"));
  c.signal_shape = {6, 1};
  EXPECT_THAT(test::import_error(stft_model(c)), HasSubstr("must be [batch, length, 1 or 2]"));
}

// ---- MelWeightMatrix ----

OnnxModelBuilder mel_model(int64_t mel_bins, int64_t dft_length, int64_t sample_rate, float lower, float upper,
                           int64_t output_datatype = onnx::TensorProto::FLOAT) {
  OnnxModelBuilder m;
  m.initializer("bins", make_i64({}, {mel_bins}));
  m.initializer("dft_length", make_i64({}, {dft_length}));
  m.initializer("rate", make_i64({}, {sample_rate}));
  m.initializer("lower", make_f32({}, {lower}));
  m.initializer("upper", make_f32({}, {upper}));
  set_attr(m.node("MelWeightMatrix", {"bins", "dft_length", "rate", "lower", "upper"}, {"w"}), "output_datatype",
           output_datatype);
  m.output("w", static_cast<int32_t>(output_datatype));
  return m;
}

// 2 bands over 0..4000 Hz at 8000 samples/s, dft_length 64 (33 bins). mel(4000) =
// 2595 log10(1 + 4000 / 700) = 2146.06, so the 4 points lie 2146.06 / 4 = 536.52 mel
// apart: 0, 536.52, 1073.03, 1609.55 mel = 0, 426.8, 1113.8, 2219.8 Hz (hz = 700
// (10^(mel / 2595) - 1)), which are bins floor(65 hz / 8000) = 0, 3 (3.47), 9 (9.05),
// 18 (18.04). Band 0 rises over bins 0..3 (0, 1/3, 2/3, 1) and falls by sixths to bin 9;
// band 1 rises by sixths from bin 3 to 1 at bin 9 and falls by ninths to bin 18.
std::vector<std::vector<float>> two_band_columns() {
  std::vector<float> band0(33, 0), band1(33, 0);
  for (int j = 0; j <= 3; ++j) band0[j] = j / 3.0f;
  for (int j = 4; j < 9; ++j) band0[j] = (9 - j) / 6.0f;
  for (int j = 3; j <= 9; ++j) band1[j] = (j - 3) / 6.0f;
  for (int j = 10; j < 18; ++j) band1[j] = (18 - j) / 9.0f;
  return {band0, band1};
}

TEST(SignalMelWeightMatrix, TwoBandsByHand) {
  const Tensor w = test::run_single_output(mel_model(2, 64, 8000, 0, 4000), {});
  ASSERT_EQ(w.shape(), (std::vector<int64_t>{33, 2}));
  const auto columns = two_band_columns();
  std::vector<float> expected;
  for (int j = 0; j < 33; ++j) expected.insert(expected.end(), {columns[0][j], columns[1][j]});
  EXPECT_THAT(values_of(w), near(expected, 1e-6f));
}

TEST(SignalMelWeightMatrix, DoubleOutput) {
  const Tensor w = test::run_single_output(mel_model(2, 64, 8000, 0, 4000, onnx::TensorProto::DOUBLE), {});
  ASSERT_EQ(w.dtype(), DType::f64);
  EXPECT_NEAR(w.data_as<double>()[1 * 2 + 0], 1.0 / 3, 1e-12);  // band 0 at bin 1
  EXPECT_NEAR(w.data_as<double>()[12 * 2 + 1], 6.0 / 9, 1e-12);  // band 1 at bin 12
  EXPECT_EQ(w.data_as<double>()[20 * 2 + 1], 0);
}

TEST(SignalMelWeightMatrix, BadEdgesAreClearErrors) {
  EXPECT_THAT(test::import_error(mel_model(2, 64, 8000, 0, 5000)),
              HasSubstr("needs 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2"));
  EXPECT_THAT(test::import_error(mel_model(2, 64, 8000, 300, 300)), HasSubstr("lower_edge_hertz < upper_edge_hertz"));
  EXPECT_THAT(test::import_error(mel_model(2, 64, 8000, -10, 300)), HasSubstr("0 <= lower_edge_hertz"));
  EXPECT_THAT(test::import_error(mel_model(0, 64, 8000, 0, 4000)), HasSubstr("must be positive"));
}

// ---- Det ----

// Cofactor expansion along the first row: independent of elimination and pivoting.
double cofactor_determinant(const std::vector<double>& a, int64_t m) {
  if (m == 1) return a[0];
  double det = 0;
  for (int64_t col = 0; col < m; ++col) {
    std::vector<double> minor;
    for (int64_t r = 1; r < m; ++r) {
      for (int64_t c = 0; c < m; ++c) {
        if (c != col) minor.push_back(a[r * m + c]);
      }
    }
    det += (col % 2 == 0 ? 1 : -1) * a[col] * cofactor_determinant(minor, m - 1);
  }
  return det;
}

Tensor det(const Tensor& x) {
  OnnxModelBuilder m;
  m.input("x", x.shape()).output("y");
  m.node("Det", {"x"}, {"y"});
  return run_model(m, {{"x", x}}).at("y");
}

// |1 2; 3 4| = 4 - 6 = -2; |2 0; 0 3| = 6; |0 1; 1 0| = -1 (a zero first pivot: the rows
// swap); |1 2; 2 4| = 0 (singular).
TEST(SignalDet, BatchOfTwoByTwoByHand) {
  const Tensor y = det(make_f32({2, 2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3, 0, 1, 1, 0, 1, 2, 2, 4}));
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(values_of(y), near({-2, 6, -1, 0}));
}

// |0 2 1; 1 3 2; 4 1 1| = 0 (3 - 2) - 2 (1 - 8) + 1 (1 - 12) = 14 - 11 = 3.
TEST(SignalDet, ThreeByThreeNeedsPivoting) {
  const Tensor y = det(make_f32({3, 3}, {0, 2, 1, 1, 3, 2, 4, 1, 1}));
  EXPECT_TRUE(y.shape().empty());
  EXPECT_THAT(values_of(y), near({3}));
}

TEST(SignalDet, DoubleFiveByFiveMatchesCofactorExpansion) {
  std::vector<double> a;
  for (int i = 0; i < 25; ++i) a.push_back(std::sin(1.7 * i) * 3 + (i % 6 == 0 ? 2 : 0));
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::DOUBLE, {"5", "5"}).output("y", onnx::TensorProto::DOUBLE);
  m.node("Det", {"x"}, {"y"});
  const Tensor y = run_model(m, {{"x", make_f64({5, 5}, a)}}).at("y");
  ASSERT_EQ(y.dtype(), DType::f64);
  const double expected = cofactor_determinant(a, 5);
  EXPECT_NEAR(y.data_as<double>()[0], expected, 1e-10 * std::abs(expected));
}

TEST(SignalDet, NonSquareMatricesAreClearErrors) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 3}, std::vector<int64_t>{4}}) {
    OnnxModelBuilder m;
    m.input("x", shape).output("y");
    m.node("Det", {"x"}, {"y"});
    EXPECT_THAT(test::import_error(m), HasSubstr("must hold square matrices [..., M, M]"));
  }
}

// ---- ReverseSequence ----

OnnxModelBuilder reverse_model(const std::vector<int64_t>& shape, int64_t batch_axis, int64_t time_axis,
                               int32_t elem_type = onnx::TensorProto::FLOAT) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(std::to_string(d));
  OnnxModelBuilder m;
  m.input("x", elem_type, dims).input("lens", onnx::TensorProto::INT64, {dims[batch_axis]}).output("y", elem_type);
  onnx::NodeProto& n = m.node("ReverseSequence", {"x", "lens"}, {"y"});
  set_attr(n, "batch_axis", batch_axis);
  set_attr(n, "time_axis", time_axis);
  return m;
}

// Batch-major rows 0 1 2 3 and 4 5 6 7 with lengths 3 and 0: 2 1 0 3 and the second as is.
TEST(SignalReverseSequence, BatchMajorByHand) {
  const Tensor y = run_model(reverse_model({2, 4}, 0, 1), {{"x", make_f32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})},
                                                           {"lens", make_i64({2}, {3, 0})}})
                       .at("y");
  EXPECT_THAT(values_of(y), ElementsAre(2, 1, 0, 3, 4, 5, 6, 7));
}

// Time-major [time 3, batch 2, 2] of int64, x[t][b] = (10 t + b, -(10 t + b)): batch 0
// reverses all 3 steps (times 2, 1, 0), batch 1 its first 2 (times 1, 0, then 2).
TEST(SignalReverseSequence, TimeMajorInt64ByHand) {
  std::vector<int64_t> x;
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t b = 0; b < 2; ++b) x.insert(x.end(), {10 * t + b, -(10 * t + b)});
  }
  const Tensor y = run_model(reverse_model({3, 2, 2}, 1, 0, onnx::TensorProto::INT64),
                             {{"x", make_i64({3, 2, 2}, x)}, {"lens", make_i64({2}, {3, 2})}})
                       .at("y");
  EXPECT_THAT(ints_of(y), ElementsAre(20, -20, 11, -11, 10, -10, 1, -1, 0, 0, 21, -21));
}

TEST(SignalReverseSequence, LengthsOutsideTheTimeDimAreClearErrors) {
  const OnnxModelBuilder m = reverse_model({2, 4}, 0, 1);
  const Tensor x = make_f32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  for (int64_t bad : {5, -1}) {
    try {
      run_model(m, {{"x", x}, {"lens", make_i64({2}, {1, bad})}});
      ADD_FAILURE() << "length " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(fmt::format("sequence_lens[1] is {}; it must lie in [0, 4]", bad)));
    }
  }
}

TEST(SignalReverseSequence, BadAxesAndShapesAreClearErrors) {
  EXPECT_THAT(test::import_error(reverse_model({2, 4}, 0, 0)),
              HasSubstr("batch_axis 0 and time_axis 0 must be 0 and 1"));
  EXPECT_THAT(test::import_error(reverse_model({2, 4}, 1, 2)), HasSubstr("batch_axis 1 and time_axis 2"));
  // By default batch_axis is 1, so x [2, 4] holds 4 sequences and lens must be [4].
  OnnxModelBuilder wrong;
  wrong.input("x", {2, 4}).input("lens", onnx::TensorProto::INT64, {"2"}).output("y");
  wrong.node("ReverseSequence", {"x", "lens"}, {"y"});
  EXPECT_THAT(test::import_error(wrong), HasSubstr("sequence_lens i64[2] must be [4]"));
  OnnxModelBuilder rank1;
  rank1.input("x", {4}).input("lens", onnx::TensorProto::INT64, {"4"}).output("y");
  rank1.node("ReverseSequence", {"x", "lens"}, {"y"});
  EXPECT_THAT(test::import_error(rank1), HasSubstr("must have rank >= 2"));
}

}  // namespace
}  // namespace nee
