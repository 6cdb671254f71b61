/* Runs a one-input, one-output ONNX model with a NEE kernel bundle through NEE's C API.
 *
 *   run_model_c MODEL BUNDLE INPUT.f32 EXPECTED.f32
 *
 * MODEL may be a deploy artifact (nee-tune --deploy) instead, with BUNDLE "": the
 * artifact holds its own.
 * INPUT.f32 holds the input's float32 elements (batch 1, symbolic dims taken as 1) and
 * EXPECTED.f32 the output's, raw and little-endian. The output is written into a buffer
 * of this program's (no copy), compared with EXPECTED within 1e-4 of its largest
 * magnitude, and the program exits 0 when it matches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <nee/nee.h>

/* Prints a failed call's message and exits. */
static void check(NeeStatus* status, const char* what) {
  if (!status) return;
  fprintf(stderr, "%s: %s\n", what, nee_status_message(status));
  nee_status_free(status);
  exit(1);
}

/* Reads a file of `count` floats into a new buffer. */
static float* read_floats(const char* path, size_t count) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  float* data = malloc(count * sizeof(float));
  if (!data || fread(data, sizeof(float), count, f) != count || fgetc(f) != EOF) {
    fprintf(stderr, "%s does not hold %zu floats\n", path, count);
    exit(1);
  }
  fclose(f);
  return data;
}

/* The dims of a value, with symbolic ones as 1, and their element count. */
static size_t concrete_dims(const NeeValueInfo* info, int64_t* dims) {
  size_t count = 1;
  for (int64_t i = 0; i < info->rank; ++i) {
    dims[i] = info->dims[i] < 0 ? 1 : info->dims[i];
    count *= (size_t)dims[i];
  }
  return count;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s MODEL BUNDLE INPUT.f32 EXPECTED.f32\n", argv[0]);
    return 2;
  }
  printf("NEE %s (C API %d)\n", nee_version(), nee_api_version());
  NeeEnv* env = NULL;
  check(nee_env_create(NULL, &env), "environment");
  NeeSessionOptions* options = NULL;
  check(nee_session_options_create(&options), "session options");
  if (argv[2][0]) check(nee_session_options_set_bundle(options, argv[2]), "bundle");
  NeeSession* session = NULL;
  check(nee_session_create(env, argv[1], options, &session), "session");

  NeeValueInfo in_info, out_info;
  check(nee_session_input_info(session, 0, &in_info), "input info");
  check(nee_session_output_info(session, 0, &out_info), "output info");
  int64_t in_dims[16], out_dims[16];
  if (in_info.rank < 0 || in_info.rank > 16 || out_info.rank < 0 || out_info.rank > 16) {
    fprintf(stderr, "the model does not declare shapes this example reads\n");
    return 1;
  }
  const size_t in_count = concrete_dims(&in_info, in_dims), out_count = concrete_dims(&out_info, out_dims);
  printf("input '%s' (%zu floats), output '%s' (%zu floats)\n", in_info.name, in_count, out_info.name, out_count);

  float* input = read_floats(argv[3], in_count);
  float* expected = read_floats(argv[4], out_count);
  float* output = calloc(out_count, sizeof(float));
  NeeTensor *in_tensor = NULL, *out_tensor = NULL;
  check(nee_tensor_wrap(NEE_DTYPE_F32, in_dims, (size_t)in_info.rank, input, in_count * sizeof(float), &in_tensor),
        "input tensor");
  check(nee_tensor_wrap(NEE_DTYPE_F32, out_dims, (size_t)out_info.rank, output, out_count * sizeof(float),
                        &out_tensor),
        "output tensor");
  const char* input_names[] = {in_info.name};
  const char* output_names[] = {out_info.name};
  const NeeTensor* inputs[] = {in_tensor};
  NeeTensor* outputs[] = {out_tensor};
  check(nee_session_run(session, input_names, inputs, 1, output_names, 1, outputs), "run");

  double peak = 0, error = 0;
  for (size_t i = 0; i < out_count; ++i) {
    peak = fmax(peak, fabs(expected[i]));
    error = fmax(error, fabs((double)output[i] - expected[i]));
  }
  const int ok = error <= 1e-4 * peak;
  printf("max |error| %.3g, %.3g of the largest expected value: %s\n", error, peak > 0 ? error / peak : error,
         ok ? "ok" : "MISMATCH");

  nee_tensor_free(in_tensor);
  nee_tensor_free(out_tensor);
  free(input);
  free(expected);
  free(output);
  nee_session_free(session);
  nee_session_options_free(options);
  nee_env_free(env);
  return ok ? 0 : 1;
}
