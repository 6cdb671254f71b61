/* The flat C ABI between a NEE kernel bundle (kernels.so) and the runtime. A bundle
 * exports the four functions below; the runtime refuses a bundle whose
 * nee_bundle_abi_version() differs from NEE_BUNDLE_ABI_VERSION. Keep in step with
 * nee::kBundleAbiVersion (core/version.h). */
#ifndef NEE_BUNDLE_ABI_H
#define NEE_BUNDLE_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

#define NEE_BUNDLE_ABI_VERSION 3

struct halide_filter_metadata_t;

typedef struct nee_bundle_kernel {
  const char* workload_key; /* nee::Workload::key() of the workload it computes */
  const char* symbol;       /* Halide function name: <symbol>_argv, <symbol>_metadata */
  int (*argv)(void** args);
  const struct halide_filter_metadata_t* (*metadata)(void);
} nee_bundle_kernel;

typedef int (*nee_bundle_abi_version_fn)(void);
typedef const char* (*nee_bundle_target_fn)(void);
typedef int (*nee_bundle_kernel_count_fn)(void);
typedef const nee_bundle_kernel* (*nee_bundle_kernels_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
