/* NEE's C API: run ONNX models with a tuned kernel bundle from any application.
 *
 * C99. Every handle is opaque and is freed by its own nee_*_free function (NULL is
 * accepted and ignored). Every call that can fail returns a NeeStatus*: NULL on success,
 * otherwise a status whose code and message say what went wrong (the message names the
 * file, input, tensor or option at fault); the caller frees it with nee_status_free. No
 * C++ exception ever crosses this interface.
 *
 * Threads: a NeeEnv and a NeeSession may be used from several threads at once, and runs
 * of one session overlap: each run has intermediate memory of its own (a run that finds
 * every arena in use allocates one more, kept for later runs, while the session's memory
 * bound, nee_session_options_set_max_memory, holds another run; beyond it, a run waits
 * for an arena) and shares the model's weights and kernels. The kernel pool runs one parallel loop at a time, so runs overlap
 * best with an environment of 1 kernel thread: the zoo's ResNet-50 from two calling
 * threads ran 1.97 times one thread's runs per second on 2 cores, 1.24 times those of one
 * caller with 2 kernel threads. A NeeTensor may be read by several threads, written by
 * one.
 *
 * Typical use:
 *   NeeEnv* env; NeeSession* session; NeeSessionOptions* so;
 *   nee_env_create(NULL, &env);
 *   nee_session_options_create(&so);
 *   nee_session_options_set_bundle(so, "bundle");
 *   nee_session_create(env, "model.onnx", so, &session);
 *   ... nee_tensor_wrap(...) the inputs, then nee_session_run(...) ...
 *   nee_session_free(session); nee_session_options_free(so); nee_env_free(env);
 */
#ifndef NEE_NEE_H
#define NEE_NEE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libnee exports (it exports nothing else). */
#define NEE_API __attribute__((visibility("default")))

/* The version of this interface; it changes only with incompatible changes (the
 * library's SONAME carries it). */
#define NEE_API_VERSION 1

/* ---------------------------------------------------------------- status */

typedef enum NeeCode {
  NEE_OK = 0,
  NEE_ERROR_INVALID_ARGUMENT = 1, /* a NULL handle, a bad option, a missing input... */
  NEE_ERROR_INVALID_MODEL = 2,    /* the model cannot be read or imported */
  NEE_ERROR_INVALID_BUNDLE = 3,   /* the kernel bundle cannot be verified or loaded */
  NEE_ERROR_OUT_OF_MEMORY = 4,
  NEE_ERROR_RUNTIME = 5 /* a failure while running */
} NeeCode;

typedef struct NeeStatus NeeStatus;

/* NEE_OK for NULL. */
NEE_API NeeCode nee_status_code(const NeeStatus* status);
/* "" for NULL; valid until the status is freed. */
NEE_API const char* nee_status_message(const NeeStatus* status);
NEE_API void nee_status_free(NeeStatus* status);

/* NEE's version ("0.1.0"), and NEE_API_VERSION as the library was built. */
NEE_API const char* nee_version(void);
NEE_API int nee_api_version(void);

/* ---------------------------------------------------------------- element types */

typedef enum NeeDType {
  NEE_DTYPE_UNKNOWN = 0, /* model metadata only: an output whose element type is not declared */
  NEE_DTYPE_F32 = 1,
  NEE_DTYPE_F64 = 2,
  NEE_DTYPE_F16 = 3,
  NEE_DTYPE_BF16 = 4,
  NEE_DTYPE_I8 = 5,
  NEE_DTYPE_U8 = 6,
  NEE_DTYPE_I16 = 7,
  NEE_DTYPE_U16 = 8,
  NEE_DTYPE_I32 = 9,
  NEE_DTYPE_U32 = 10,
  NEE_DTYPE_I64 = 11,
  NEE_DTYPE_U64 = 12,
  NEE_DTYPE_BOOL = 13, /* one byte per element, 0 or 1 */
  NEE_DTYPE_STRING = 14 /* model metadata only: string tensors do not pass this API */
} NeeDType;

/* Bytes per element (0 for NEE_DTYPE_STRING and unknown values). */
NEE_API size_t nee_dtype_size(NeeDType dtype);

/* ---------------------------------------------------------------- environment */

typedef enum NeeLogLevel {
  NEE_LOG_DEBUG = 0,
  NEE_LOG_INFO = 1,
  NEE_LOG_WARNING = 2, /* the default */
  NEE_LOG_ERROR = 3,
  NEE_LOG_OFF = 4
} NeeLogLevel;

typedef struct NeeEnvOptions NeeEnvOptions;

NEE_API NeeStatus* nee_env_options_create(NeeEnvOptions** out);
/* Threads of the kernel pool that runs bundles' parallel loops; 0 (the default): one per
 * CPU this process may run on. The pool is one per process, shared by every session, and
 * the session made last with a bundle sets its size and spin time. */
NEE_API NeeStatus* nee_env_options_set_threads(NeeEnvOptions* options, int threads);
/* How long, in microseconds, the pool's threads stay awake after a parallel loop before
 * they sleep (short loops then start without a wake-up); 0 sleeps at once. */
NEE_API NeeStatus* nee_env_options_set_spin_us(NeeEnvOptions* options, int spin_us);
/* Which kernels run a node, in order of preference, comma-separated: "bundle,reference"
 * (the default: the session's bundle where it holds the node's workload, NEE's reference
 * kernels for the rest) or "reference" (the reference kernels only, even with a
 * bundle). */
NEE_API NeeStatus* nee_env_options_set_providers(NeeEnvOptions* options, const char* order);
/* What NEE writes to stderr; the level is process-wide (the last environment made sets
 * it). */
NEE_API NeeStatus* nee_env_options_set_log_level(NeeEnvOptions* options, NeeLogLevel level);
NEE_API void nee_env_options_free(NeeEnvOptions* options);

typedef struct NeeEnv NeeEnv;

/* options may be NULL (the defaults). The environment must outlive its sessions. */
NEE_API NeeStatus* nee_env_create(const NeeEnvOptions* options, NeeEnv** out);
NEE_API void nee_env_free(NeeEnv* env);

/* ---------------------------------------------------------------- sessions */

typedef struct NeeSessionOptions NeeSessionOptions;

NEE_API NeeStatus* nee_session_options_create(NeeSessionOptions** out);
/* The kernel bundle folder made by `nee-tune model.onnx --bundle DIR`; without one, the
 * reference kernels run everything. The bundle is verified before any of its code is
 * loaded, and must have been built from this model. */
NEE_API NeeStatus* nee_session_options_set_bundle(NeeSessionOptions* options, const char* bundle_dir);
/* Bounds what the session may allocate, in bytes: the model's weights, one run's tensors,
 * and both together, each checked before it is allocated (an error names the tensor, its
 * size and the bound; the weights are read when a run first needs them); one tensor stays
 * within the lesser of this and 4 GiB. 0 (the default): what the process can have, the least
 * of physical memory, its cgroup's memory limit and its ulimit. */
NEE_API NeeStatus* nee_session_options_set_max_memory(NeeSessionOptions* options, uint64_t bytes);
/* Loads the bundle only if it is signed by one of these Ed25519 public keys: a PEM file,
 * or a folder whose *.pem files all are; may be called again to trust more (docs/TRUST.md).
 * The keys are read when the session is made. */
NEE_API NeeStatus* nee_session_options_add_trusted_keys(NeeSessionOptions* options, const char* path);
/* Record each node's time in every run (read with nee_session_profile_*); off by
 * default. */
NEE_API NeeStatus* nee_session_options_set_profiling(NeeSessionOptions* options, int enabled);
NEE_API void nee_session_options_free(NeeSessionOptions* options);

typedef struct NeeSession NeeSession;

/* A session over the ONNX model at model_path (options may be NULL). The model is read and
 * checked now; kernels are bound for each set of input shapes at its first run.
 * model_path may also name a deploy artifact's folder (nee-tune --deploy): its graph,
 * already optimized, its weights mapped in place and its own bundle (set no bundle in the
 * options; trusted keys apply to it), checked against the artifact's hashes; it runs the
 * input shapes it was written for, and a run of others is an invalid argument. */
NEE_API NeeStatus* nee_session_create(NeeEnv* env, const char* model_path, const NeeSessionOptions* options,
                              NeeSession** out);
/* The same from the model's bytes (copied; the buffer may be freed on return). A model
 * whose initializers keep their data in external files needs nee_session_create. */
NEE_API NeeStatus* nee_session_create_from_memory(NeeEnv* env, const void* model_data, size_t model_bytes,
                                          const NeeSessionOptions* options, NeeSession** out);
NEE_API void nee_session_free(NeeSession* session);

/* A graph input or output as the model declares it. */
typedef struct NeeValueInfo {
  const char* name;
  NeeDType dtype;
  /* -1 when the model does not declare the shape. */
  int64_t rank;
  /* rank entries; -1 for a symbolic or unknown dim. */
  const int64_t* dims;
  /* rank entries: the symbolic dim's name ("batch"), or NULL for a fixed or unnamed dim. */
  const char* const* dim_names;
} NeeValueInfo;

NEE_API size_t nee_session_input_count(const NeeSession* session);
NEE_API size_t nee_session_output_count(const NeeSession* session);
/* The pointers in *out stay valid while the session lives. */
NEE_API NeeStatus* nee_session_input_info(const NeeSession* session, size_t index, NeeValueInfo* out);
NEE_API NeeStatus* nee_session_output_info(const NeeSession* session, size_t index, NeeValueInfo* out);

/* ---------------------------------------------------------------- tensors */

typedef struct NeeTensor NeeTensor;

/* A tensor NEE allocates (64-byte aligned, zero-filled). */
NEE_API NeeStatus* nee_tensor_create(NeeDType dtype, const int64_t* dims, size_t rank, NeeTensor** out);
/* A tensor over the caller's buffer, which NEE reads and writes in place (no copy): it must
 * hold bytes == the element count times nee_dtype_size(dtype) and outlive the tensor. */
NEE_API NeeStatus* nee_tensor_wrap(NeeDType dtype, const int64_t* dims, size_t rank, void* data, size_t bytes,
                           NeeTensor** out);
NEE_API NeeDType nee_tensor_dtype(const NeeTensor* tensor);
NEE_API size_t nee_tensor_rank(const NeeTensor* tensor);
/* rank entries, valid while the tensor lives. */
NEE_API const int64_t* nee_tensor_dims(const NeeTensor* tensor);
NEE_API int64_t nee_tensor_element_count(const NeeTensor* tensor);
NEE_API size_t nee_tensor_byte_size(const NeeTensor* tensor);
NEE_API void* nee_tensor_data(NeeTensor* tensor);
NEE_API void nee_tensor_free(NeeTensor* tensor);

/* ---------------------------------------------------------------- running */

/* Runs the model once. Every graph input is given by name (input_names[i] for
 * inputs[i]) with its declared dtype and a shape its declaration allows; symbolic dims
 * take the given sizes (a new set of shapes binds kernels for it once, then is kept).
 * Outputs are named by output_names (NULL: every output in declaration order, and
 * output_count must be nee_session_output_count). For each output, outputs[i] is either
 * NULL, and NEE stores a new tensor there that the caller frees with nee_tensor_free, or
 * a tensor the caller made (nee_tensor_wrap over its own buffer, or nee_tensor_create)
 * with the output's dtype and shape, which the run fills. On failure no output is
 * allocated. */
NEE_API NeeStatus* nee_session_run(NeeSession* session, const char* const* input_names, const NeeTensor* const* inputs,
                           size_t input_count, const char* const* output_names, size_t output_count,
                           NeeTensor** outputs);

/* ---------------------------------------------------------------- profiling */

/* One node of the last run of a session made with profiling on. */
typedef struct NeeNodeTime {
  const char* node;     /* the node's name in the optimized graph */
  const char* op;       /* its operator (fused nodes are NeeConv, NeeMatMul...) */
  const char* provider; /* "bundle" or "reference" */
  const char* kernel;   /* the kernel that ran it */
  double microseconds;
} NeeNodeTime;

/* Nodes of the last run to finish (0 without profiling or before the first run); with
 * runs overlapping, a node's time may be another run's of the same specialization. */
NEE_API size_t nee_session_profile_count(const NeeSession* session);
/* The pointers in *out stay valid until the session's next run. */
NEE_API NeeStatus* nee_session_profile_entry(const NeeSession* session, size_t index, NeeNodeTime* out);

#ifdef __cplusplus
}
#endif

#endif /* NEE_NEE_H */
