// NEE's C++ API: a header-only layer over the C API (nee/nee.h) with owning handles,
// exceptions and spans, in the manner of onnxruntime_cxx_api.h.
//
//   nee::api::Env env;
//   nee::api::Session session(env, "model.onnx", nee::api::SessionOptions().bundle("bundle"));
//   std::vector<float> pixels(1 * 3 * 224 * 224);
//   auto input = nee::api::Tensor::wrap<float>(pixels, {1, 3, 224, 224});
//   std::vector<nee::api::Tensor> outputs = session.run({{"input", &input}});
//   std::span-like view: outputs[0].data<float>() and outputs[0].element_count().
//
// Threads: as the C API says (nee/nee.h).
#ifndef NEE_NEE_HPP
#define NEE_NEE_HPP

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nee/nee.h>

namespace nee::api {

// What a failed call of the C API said.
class Exception : public std::runtime_error {
 public:
  Exception(NeeCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  NeeCode code() const { return code_; }

 private:
  NeeCode code_;
};

namespace detail {

// Throws the status's error, if any, after freeing it.
inline void check(NeeStatus* status) {
  if (!status) return;
  const NeeCode code = nee_status_code(status);
  std::string message = nee_status_message(status);
  nee_status_free(status);
  throw Exception(code, message);
}

// Owns one C handle, freed by `Free`; movable, not copyable.
template <typename T, void (*Free)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* p) : p_(p) {}
  Handle(Handle&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      Free(p_);
      p_ = std::exchange(other.p_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Free(p_); }

  T* get() const { return p_; }
  T* release() { return std::exchange(p_, nullptr); }

 private:
  T* p_ = nullptr;
};

template <typename T> constexpr NeeDType dtype_of();
template <> constexpr NeeDType dtype_of<float>() { return NEE_DTYPE_F32; }
template <> constexpr NeeDType dtype_of<double>() { return NEE_DTYPE_F64; }
template <> constexpr NeeDType dtype_of<int8_t>() { return NEE_DTYPE_I8; }
template <> constexpr NeeDType dtype_of<uint8_t>() { return NEE_DTYPE_U8; }
template <> constexpr NeeDType dtype_of<int16_t>() { return NEE_DTYPE_I16; }
template <> constexpr NeeDType dtype_of<uint16_t>() { return NEE_DTYPE_U16; }
template <> constexpr NeeDType dtype_of<int32_t>() { return NEE_DTYPE_I32; }
template <> constexpr NeeDType dtype_of<uint32_t>() { return NEE_DTYPE_U32; }
template <> constexpr NeeDType dtype_of<int64_t>() { return NEE_DTYPE_I64; }
template <> constexpr NeeDType dtype_of<uint64_t>() { return NEE_DTYPE_U64; }
template <> constexpr NeeDType dtype_of<bool>() { return NEE_DTYPE_BOOL; }

}  // namespace detail

// A contiguous view of elements, as std::span (C++20) gives.
template <typename T>
class Span {
 public:
  Span(T* data, size_t size) : data_(data), size_(size) {}
  T* data() const { return data_; }
  size_t size() const { return size_; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_;
  size_t size_;
};

class EnvOptions {
 public:
  EnvOptions() {
    NeeEnvOptions* p = nullptr;
    detail::check(nee_env_options_create(&p));
    h_ = Handle(p);
  }
  EnvOptions& threads(int n) {
    detail::check(nee_env_options_set_threads(h_.get(), n));
    return *this;
  }
  EnvOptions& spin_us(int us) {
    detail::check(nee_env_options_set_spin_us(h_.get(), us));
    return *this;
  }
  EnvOptions& providers(const std::string& order) {
    detail::check(nee_env_options_set_providers(h_.get(), order.c_str()));
    return *this;
  }
  EnvOptions& log_level(NeeLogLevel level) {
    detail::check(nee_env_options_set_log_level(h_.get(), level));
    return *this;
  }
  const NeeEnvOptions* get() const { return h_.get(); }

 private:
  using Handle = detail::Handle<NeeEnvOptions, nee_env_options_free>;
  Handle h_;
};

class Env {
 public:
  explicit Env(const EnvOptions& options = EnvOptions()) {
    NeeEnv* p = nullptr;
    detail::check(nee_env_create(options.get(), &p));
    h_ = Handle(p);
  }
  NeeEnv* get() const { return h_.get(); }

 private:
  using Handle = detail::Handle<NeeEnv, nee_env_free>;
  Handle h_;
};

class SessionOptions {
 public:
  SessionOptions() {
    NeeSessionOptions* p = nullptr;
    detail::check(nee_session_options_create(&p));
    h_ = Handle(p);
  }
  SessionOptions& bundle(const std::string& dir) {
    detail::check(nee_session_options_set_bundle(h_.get(), dir.c_str()));
    return *this;
  }
  SessionOptions& max_memory(uint64_t bytes) {
    detail::check(nee_session_options_set_max_memory(h_.get(), bytes));
    return *this;
  }
  SessionOptions& trust(const std::string& key_file_or_folder) {
    detail::check(nee_session_options_add_trusted_keys(h_.get(), key_file_or_folder.c_str()));
    return *this;
  }
  SessionOptions& profiling(bool enabled) {
    detail::check(nee_session_options_set_profiling(h_.get(), enabled ? 1 : 0));
    return *this;
  }
  const NeeSessionOptions* get() const { return h_.get(); }

 private:
  using Handle = detail::Handle<NeeSessionOptions, nee_session_options_free>;
  Handle h_;
};

class Tensor {
 public:
  // A tensor NEE allocates, zero-filled.
  static Tensor create(NeeDType dtype, const std::vector<int64_t>& dims) {
    NeeTensor* p = nullptr;
    detail::check(nee_tensor_create(dtype, dims.data(), dims.size(), &p));
    return Tensor(p);
  }
  // A tensor over the caller's elements, read and written in place; they must outlive it.
  template <typename T>
  static Tensor wrap(T* data, size_t count, const std::vector<int64_t>& dims) {
    NeeTensor* p = nullptr;
    detail::check(nee_tensor_wrap(detail::dtype_of<T>(), dims.data(), dims.size(), data, count * sizeof(T), &p));
    return Tensor(p);
  }
  template <typename T>
  static Tensor wrap(std::vector<T>& elements, const std::vector<int64_t>& dims) {
    return wrap(elements.data(), elements.size(), dims);
  }
  // Takes ownership of a tensor from the C API.
  explicit Tensor(NeeTensor* p) : h_(p) {}

  NeeDType dtype() const { return nee_tensor_dtype(h_.get()); }
  std::vector<int64_t> dims() const {
    const int64_t* d = nee_tensor_dims(h_.get());
    return std::vector<int64_t>(d, d + nee_tensor_rank(h_.get()));
  }
  int64_t element_count() const { return nee_tensor_element_count(h_.get()); }
  size_t byte_size() const { return nee_tensor_byte_size(h_.get()); }
  // The elements, as T, which must be the tensor's element type.
  template <typename T>
  Span<T> data() const {
    if (detail::dtype_of<T>() != dtype()) {
      throw Exception(NEE_ERROR_INVALID_ARGUMENT, "the tensor's elements are not of the type asked for");
    }
    return Span<T>(static_cast<T*>(nee_tensor_data(h_.get())), static_cast<size_t>(element_count()));
  }
  NeeTensor* get() const { return h_.get(); }

 private:
  using Handle = detail::Handle<NeeTensor, nee_tensor_free>;
  Handle h_;
};

// A graph input or output as the model declares it.
struct ValueInfo {
  std::string name;
  NeeDType dtype;
  bool has_shape;
  std::vector<int64_t> dims;          // -1: symbolic or unknown
  std::vector<std::string> dim_names;  // "" for a fixed dim
};

struct NodeTime {
  std::string node, op, provider, kernel;
  double microseconds;
};

class Session {
 public:
  Session(const Env& env, const std::string& model_path, const SessionOptions& options = SessionOptions()) {
    NeeSession* p = nullptr;
    detail::check(nee_session_create(env.get(), model_path.c_str(), options.get(), &p));
    h_ = Handle(p);
  }
  // From the model's bytes.
  Session(const Env& env, const void* model_data, size_t model_bytes, const SessionOptions& options = SessionOptions()) {
    NeeSession* p = nullptr;
    detail::check(nee_session_create_from_memory(env.get(), model_data, model_bytes, options.get(), &p));
    h_ = Handle(p);
  }

  std::vector<ValueInfo> inputs() const { return infos(nee_session_input_count(h_.get()), nee_session_input_info); }
  std::vector<ValueInfo> outputs() const {
    return infos(nee_session_output_count(h_.get()), nee_session_output_info);
  }

  // Every output, in declaration order, in tensors NEE allocates.
  std::vector<Tensor> run(std::initializer_list<std::pair<const char*, const Tensor*>> inputs) {
    std::vector<const char*> names;
    std::vector<const NeeTensor*> tensors;
    for (const auto& [name, t] : inputs) {
      names.push_back(name);
      tensors.push_back(t ? t->get() : nullptr);
    }
    std::vector<NeeTensor*> outs(nee_session_output_count(h_.get()), nullptr);
    detail::check(nee_session_run(h_.get(), names.data(), tensors.data(), tensors.size(), nullptr, outs.size(),
                                  outs.data()));
    std::vector<Tensor> result;
    for (NeeTensor* t : outs) result.emplace_back(t);
    return result;
  }

  // The outputs named, written into the caller's tensors (no copy).
  void run(const std::vector<std::pair<std::string, const Tensor*>>& inputs,
           const std::vector<std::pair<std::string, Tensor*>>& outputs) {
    std::vector<const char*> in_names, out_names;
    std::vector<const NeeTensor*> in_tensors;
    std::vector<NeeTensor*> out_tensors;
    for (const auto& [name, t] : inputs) {
      in_names.push_back(name.c_str());
      in_tensors.push_back(t ? t->get() : nullptr);
    }
    for (const auto& [name, t] : outputs) {
      if (!t) throw Exception(NEE_ERROR_INVALID_ARGUMENT, "output '" + name + "' has no tensor to write into");
      out_names.push_back(name.c_str());
      out_tensors.push_back(t->get());
    }
    detail::check(nee_session_run(h_.get(), in_names.data(), in_tensors.data(), in_tensors.size(), out_names.data(),
                                  out_tensors.size(), out_tensors.data()));
  }

  // The last run's per-node times (a session made with profiling on).
  std::vector<NodeTime> profile() const {
    std::vector<NodeTime> times;
    const size_t n = nee_session_profile_count(h_.get());
    for (size_t i = 0; i < n; ++i) {
      NeeNodeTime t;
      detail::check(nee_session_profile_entry(h_.get(), i, &t));
      times.push_back({t.node, t.op, t.provider, t.kernel, t.microseconds});
    }
    return times;
  }
  NeeSession* get() const { return h_.get(); }

 private:
  using Handle = detail::Handle<NeeSession, nee_session_free>;

  std::vector<ValueInfo> infos(size_t count, NeeStatus* (*info)(const NeeSession*, size_t, NeeValueInfo*)) const {
    std::vector<ValueInfo> all;
    for (size_t i = 0; i < count; ++i) {
      NeeValueInfo v;
      detail::check(info(h_.get(), i, &v));
      ValueInfo out{v.name, v.dtype, v.rank >= 0, {}, {}};
      for (int64_t d = 0; d < v.rank; ++d) {
        out.dims.push_back(v.dims[d]);
        out.dim_names.push_back(v.dim_names[d] ? v.dim_names[d] : "");
      }
      all.push_back(std::move(out));
    }
    return all;
  }

  Handle h_;
};

inline std::string version() { return nee_version(); }

}  // namespace nee::api

#endif  // NEE_NEE_HPP
