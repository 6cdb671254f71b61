// Reference kernels of the signal operators (importer/ops/signal.cpp stores their
// shapes as attributes): cosine-sum windows, DFT, STFT and MelWeightMatrix. Transforms
// are direct O(n^2) sums accumulated in double; a twiddle's angle 2 pi (k t mod n) / n
// is reduced exactly in integers first, so long transforms lose no phase precision.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "core/error.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

constexpr double kPi = 3.14159265358979323846;

// f(T{}) for the float types the importer lets through: f32 or f64.
template <typename F>
ReferenceFn visit_float_dtype(DType dtype, F&& f) {
  if (dtype == DType::f64) return f(double{});
  return f(float{});
}

// cos and sin of 2 pi m / n for m in [0, n).
struct Twiddles {
  std::vector<double> cos, sin;
};

Twiddles twiddles(int64_t n) {
  Twiddles t;
  for (int64_t m = 0; m < n; ++m) {
    const double angle = 2 * kPi * static_cast<double>(m) / static_cast<double>(n);
    t.cos.push_back(std::cos(angle));
    t.sin.push_back(std::sin(angle));
  }
  return t;
}

// X[k] = sum over t of samples[t] e^(sign 2 pi i k t / n) for k < bins, n the twiddles'
// length; samples past the given ones are zero.
void transform_line(const std::vector<std::complex<double>>& samples, const Twiddles& tw, int64_t bins, double sign,
                    std::vector<std::complex<double>>& result) {
  const auto n = static_cast<int64_t>(tw.cos.size());
  result.assign(static_cast<size_t>(bins), {});
  for (int64_t k = 0; k < bins; ++k) {
    std::complex<double> sum;
    for (size_t t = 0; t < samples.size(); ++t) {
      const int64_t m = k * static_cast<int64_t>(t) % n;
      sum += samples[t] * std::complex<double>(tw.cos[m], sign * tw.sin[m]);
    }
    result[k] = sum;
  }
}

// The coefficients a_k of w[n] = sum_k (-1)^k a_k cos(2 pi k n / N), as ONNX defines
// each window (Hamming's are 25/46 and 21/46, not the rounded 0.54 and 0.46).
std::vector<double> cosine_sum_coefficients(const std::string& op) {
  if (op == "HannWindow") return {0.5, 0.5};
  if (op == "HammingWindow") return {25.0 / 46, 21.0 / 46};
  if (op == "BlackmanWindow") return {0.42, 0.5, 0.08};
  throw Error(op + " is no cosine-sum window");
}

// One of a tensor's values, read as double (sample_rate, the edge frequencies).
double scalar_value(const Tensor& t) {
  return visit_dtype(t.dtype(), [&t](auto tag) { return static_cast<double>(t.data_as<decltype(tag)>()[0]); });
}

double hertz_to_mel(double hertz) { return 2595 * std::log10(1 + hertz / 700); }
double mel_to_hertz(double mel) { return 700 * (std::pow(10.0, mel / 2595) - 1); }

}  // namespace

// HannWindow, HammingWindow, BlackmanWindow: N = size when periodic, size - 1 when
// symmetric; a symmetric window of one sample is [1], as numpy's windows make it.
ReferenceFn make_reference_window(const Graph& graph, const Node& node) {
  const std::vector<double> a = cosine_sum_coefficients(node.op);
  const int64_t size = node.attrs.get_int("size");
  const int64_t period = node.attrs.get_int("periodic") != 0 ? size : size - 1;
  return visit_float_dtype(graph.type_of(node.outputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
      T* w = out[0]->data_as<T>();
      if (period == 0) {
        w[0] = 1;
        return;
      }
      for (int64_t n = 0; n < size; ++n) {
        double value = 0;
        for (size_t k = 0; k < a.size(); ++k) {
          const auto m = static_cast<int64_t>(k) * n % period;
          const double term = a[k] * std::cos(2 * kPi * static_cast<double>(m) / static_cast<double>(period));
          value += k % 2 == 0 ? term : -term;
        }
        w[n] = static_cast<T>(value);
      }
    };
  });
}

// DFT along the stored axis of x viewed as [outer, extent, inner, 1 or 2]: each line
// of dft_length points (zero-padded or truncated), inverse ones with e^(+...) and 1/n.
// An inverse onesided one (IRFFT) first completes the spectrum as numpy's irfft does: the
// first dft_length / 2 + 1 bins (zero-padded or truncated), the rest their conjugates
// mirrored, the imaginary parts of the zero bin and of an even length's middle one
// dropped; its output is the real part alone.
ReferenceFn make_reference_dft(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const auto axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const int64_t length = node.attrs.get_int("dft_length");
  const bool inverse = node.attrs.get_int("inverse") != 0;
  const bool real_output = inverse && node.attrs.get_int("onesided") != 0;
  const int64_t bins = graph.type_of(node.outputs[0]).shape[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d + 1 < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t extent = x.shape[axis], parts = x.shape.back();
  const int64_t used = real_output ? length : std::min(extent, length);
  return visit_float_dtype(x.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const T* src = in[0]->data_as<T>();
      T* dst = out[0]->data_as<T>();
      const Twiddles tw = twiddles(length);
      const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
      std::vector<std::complex<double>> samples(static_cast<size_t>(used)), spectrum;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          for (int64_t t = 0; t < used; ++t) {
            if (real_output && t > length / 2) {
              samples[t] = std::conj(samples[length - t]);
              continue;
            }
            if (t >= extent) {
              samples[t] = {};
              continue;
            }
            const T* v = src + ((o * extent + t) * inner + i) * parts;
            const bool real_bin = real_output && (t == 0 || 2 * t == length);
            samples[t] = {static_cast<double>(v[0]), parts == 2 && !real_bin ? static_cast<double>(v[1]) : 0.0};
          }
          transform_line(samples, tw, bins, inverse ? 1.0 : -1.0, spectrum);
          if (real_output) {
            for (int64_t k = 0; k < bins; ++k) {
              dst[(o * bins + k) * inner + i] = static_cast<T>(spectrum[k].real() * scale);
            }
            continue;
          }
          for (int64_t k = 0; k < bins; ++k) {
            T* y = dst + ((o * bins + k) * inner + i) * 2;
            y[0] = static_cast<T>(spectrum[k].real() * scale);
            y[1] = static_cast<T>(spectrum[k].imag() * scale);
          }
        }
      }
    };
  });
}

// STFT: frame f of batch b is signal[b, f * frame_step + t] for t < frame_length, times
// the window when one is given (input 1 after import), transformed over frame_length
// points; the first `bins` of each spectrum are kept.
ReferenceFn make_reference_stft(const Graph& graph, const Node& node) {
  const TensorType& signal = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const int64_t step = node.attrs.get_int("frame_step"), frame_length = node.attrs.get_int("frame_length");
  const bool windowed = node.inputs.size() > 1;
  const int64_t batch = signal.shape[0], length = signal.shape[1], parts = signal.shape[2];
  const int64_t frames = out_shape[1], bins = out_shape[2];
  return visit_float_dtype(signal.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const T* src = in[0]->data_as<T>();
      const T* window = windowed ? in[1]->data_as<T>() : nullptr;
      T* dst = out[0]->data_as<T>();
      const Twiddles tw = twiddles(frame_length);
      std::vector<std::complex<double>> samples(static_cast<size_t>(frame_length)), spectrum;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t t = 0; t < frame_length; ++t) {
            const T* v = src + (b * length + f * step + t) * parts;
            const double w = window ? static_cast<double>(window[t]) : 1.0;
            samples[t] = {w * static_cast<double>(v[0]), parts == 2 ? w * static_cast<double>(v[1]) : 0.0};
          }
          transform_line(samples, tw, bins, -1.0, spectrum);
          for (int64_t k = 0; k < bins; ++k) {
            T* y = dst + ((b * frames + f) * bins + k) * 2;
            y[0] = static_cast<T>(spectrum[k].real());
            y[1] = static_cast<T>(spectrum[k].imag());
          }
        }
      }
    };
  });
}

// MelWeightMatrix as ONNX's reference computes it: num_mel_bins + 2 points evenly
// spaced on the HTK mel scale from mel(lower_edge_hertz) in steps of
// (mel(upper) - mel(lower)) / (num_mel_bins + 2), each turned into the DFT bin
// floor((dft_length + 1) * hertz / sample_rate); band i is a triangle rising from
// point i to a peak of 1 at point i + 1 and falling to zero at point i + 2. The edges
// must satisfy 0 <= lower < upper <= sample_rate / 2, which keeps every bin in
// [0, dft_length / 2].
ReferenceFn make_reference_mel_weight_matrix(const Graph& graph, const Node& node) {
  const int64_t mel_bins = node.attrs.get_int("num_mel_bins"), dft_length = node.attrs.get_int("dft_length");
  const int64_t spectrum_bins = dft_length / 2 + 1;
  return visit_float_dtype(graph.type_of(node.outputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const double sample_rate = scalar_value(*in[2]), lower = scalar_value(*in[3]), upper = scalar_value(*in[4]);
      if (!(sample_rate > 0 && lower >= 0 && lower < upper && upper <= sample_rate / 2)) {
        throw Error(fmt::format("MelWeightMatrix needs 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2; "
                                "got {}, {} and a sample_rate of {}",
                                lower, upper, sample_rate));
      }
      const double low_mel = hertz_to_mel(lower);
      const double mel_step = (hertz_to_mel(upper) - low_mel) / static_cast<double>(mel_bins + 2);
      std::vector<int64_t> point(static_cast<size_t>(mel_bins + 2));
      for (int64_t i = 0; i < mel_bins + 2; ++i) {
        const double hertz = mel_to_hertz(low_mel + static_cast<double>(i) * mel_step);
        point[i] = static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hertz / sample_rate));
      }
      T* w = out[0]->data_as<T>();
      std::fill(w, w + spectrum_bins * mel_bins, T{0});
      for (int64_t i = 0; i < mel_bins; ++i) {
        const int64_t left = point[i], center = point[i + 1], right = point[i + 2];
        for (int64_t j = left; j < center; ++j) {
          w[j * mel_bins + i] = static_cast<T>(static_cast<double>(j - left) / static_cast<double>(center - left));
        }
        w[center * mel_bins + i] = 1;
        for (int64_t j = center + 1; j < right; ++j) {
          w[j * mel_bins + i] = static_cast<T>(static_cast<double>(right - j) / static_cast<double>(right - center));
        }
      }
    };
  });
}

}  // namespace nee
