/* The C API from C11, on committed models, against TensorFlow's outputs
 * stored beside them; and its error paths, with their messages. Built with
 * -fsanitize=address and run with detect_leaks=1: every object the test
 * creates is freed, so LeakSanitizer fails the run on any leak in smrt. */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smrt/c_api.h"
#include "smrt/custom_op.h"

#ifndef SMRT_SOURCE_DIR
#error "the build defines SMRT_SOURCE_DIR"
#endif

static int failures = 0;

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                       \
    }                                                                   \
  } while (0)

/* Fails the test (and frees the status) unless s is NULL. */
#define CHECK_OK(s)                                                       \
  do {                                                                    \
    SmrtStatus* s_ = (s);                                                 \
    if (s_ != NULL) {                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #s, \
              SmrtCodeName(SmrtStatusCode(s_)), SmrtStatusMessage(s_));   \
      SmrtStatusDelete(s_);                                               \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

/* Expects status `s` with `code` and a message containing every string of
 * the NULL-terminated list; frees it. */
static void expect_error(SmrtStatus* s, SmrtCode code, const char* what, ...) {
  if (s == NULL) {
    fprintf(stderr, "%s: expected %s, got success\n", what, SmrtCodeName(code));
    ++failures;
    return;
  }
  if (SmrtStatusCode(s) != code) {
    fprintf(stderr, "%s: expected %s, got %s: %s\n", what, SmrtCodeName(code),
            SmrtCodeName(SmrtStatusCode(s)), SmrtStatusMessage(s));
    ++failures;
  }
  va_list ap;
  va_start(ap, what);
  for (const char* part = va_arg(ap, const char*); part != NULL; part = va_arg(ap, const char*)) {
    if (strstr(SmrtStatusMessage(s), part) == NULL) {
      fprintf(stderr, "%s: message lacks \"%s\": %s\n", what, part, SmrtStatusMessage(s));
      ++failures;
    }
  }
  va_end(ap);
  SmrtStatusDelete(s);
}

/* ------------------------------------------------------------ files */

typedef struct {
  char* data;
  size_t size;
} Bytes;

static Bytes read_file(const char* path) {
  Bytes b = {NULL, 0};
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    ++failures;
    return b;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.data = malloc(n > 0 ? (size_t)n : 1);
  b.size = fread(b.data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
  fclose(f);
  return b;
}

static char* path_join(const char* a, const char* b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char* p = malloc(n);
  snprintf(p, n, "%s/%s", a, b);
  return p;
}

/* A .npy v1 file of little-endian float32, float16, int32, int64, bool, uint8 or complex64: its data
 * (malloc'd) and shape. Only what the committed goldens use. */
typedef struct {
  SmrtDataType dtype;
  int rank;
  int64_t dims[8];
  void* data;
  size_t byte_size;
} Array;

static Array read_npy(const char* path) {
  Array a;
  memset(&a, 0, sizeof(a));
  Bytes b = read_file(path);
  if (b.size < 10 || memcmp(b.data, "\x93NUMPY\x01", 7) != 0) {
    fprintf(stderr, "%s is not a .npy v1 file\n", path);
    ++failures;
    free(b.data);
    return a;
  }
  size_t header_len = (unsigned char)b.data[8] | ((size_t)(unsigned char)b.data[9] << 8);
  if (10 + header_len > b.size) header_len = b.size - 10;
  char* header = malloc(header_len + 1); /* NUL-terminated for strstr */
  memcpy(header, b.data + 10, header_len);
  header[header_len] = '\0';
  a.dtype = strstr(header, "'<f4'")   ? SMRT_FLOAT
            : strstr(header, "'<f2'") ? SMRT_HALF
            : strstr(header, "'<i8'") ? SMRT_INT64
            : strstr(header, "'<i4'") ? SMRT_INT32
            : strstr(header, "'|b1'") ? SMRT_BOOL
            : strstr(header, "'|u1'") ? SMRT_UINT8
            : strstr(header, "'<c8'") ? SMRT_COMPLEX64
                                      : SMRT_INVALID;
  CHECK(a.dtype != SMRT_INVALID);
  const char* shape = strstr(header, "'shape': (");
  CHECK(shape != NULL);
  size_t count = 1;
  if (shape != NULL) {
    const char* p = shape + strlen("'shape': (");
    while (*p != ')' && a.rank < 8) {
      char* end = NULL;
      long long d = strtoll(p, &end, 10);
      if (end == p) break;
      a.dims[a.rank++] = d;
      count *= (size_t)d;
      p = end;
      while (*p == ',' || *p == ' ') ++p;
    }
  }
  a.byte_size = count * SmrtDataTypeSize(a.dtype);
  CHECK(10 + header_len + a.byte_size == b.size);
  a.data = malloc(a.byte_size > 0 ? a.byte_size : 1);
  if (10 + header_len + a.byte_size <= b.size) memcpy(a.data, b.data + 10 + header_len, a.byte_size);
  free(header);
  free(b.data);
  return a;
}

/* An owning tensor with the array's values. */
static SmrtTensor* tensor_from(const Array* a) {
  SmrtTensor* t = NULL;
  CHECK_OK(SmrtTensorCreate(a->dtype, a->dims, a->rank, &t));
  if (t != NULL) {
    CHECK(SmrtTensorByteSize(t) == a->byte_size);
    memcpy(SmrtTensorData(t), a->data, a->byte_size);
  }
  return t;
}

/* Same dtype and shape, and values within atol + rtol * |want|. */
static void expect_near(const SmrtTensor* got, const Array* want, const char* what) {
  if (got == NULL) {
    fprintf(stderr, "%s: no tensor\n", what);
    ++failures;
    return;
  }
  CHECK(SmrtTensorDataType(got) == want->dtype);
  CHECK(SmrtTensorRank(got) == want->rank);
  for (int i = 0; i < want->rank; ++i) CHECK(SmrtTensorDim(got, i) == want->dims[i]);
  if (SmrtTensorByteSize(got) != want->byte_size || want->dtype != SMRT_FLOAT) {
    CHECK(SmrtTensorByteSize(got) == want->byte_size);
    if (SmrtTensorByteSize(got) == want->byte_size) {
      CHECK(memcmp(SmrtTensorConstData(got), want->data, want->byte_size) == 0);
    }
    return;
  }
  const float* g = SmrtTensorConstData(got);
  const float* w = want->data;
  int bad = 0;
  for (size_t i = 0; i < want->byte_size / 4; ++i) {
    /* The conformance suite's rule: |smrt - tf| <= 1e-4 * max(1, |tf|). */
    if (!(fabs((double)g[i] - (double)w[i]) <= 1e-4 * fmax(1.0, fabs((double)w[i])))) {
      if (bad++ < 3) fprintf(stderr, "%s: element %zu is %g, TensorFlow says %g\n", what, i, g[i], w[i]);
    }
  }
  if (bad > 0) ++failures;
}

/* ------------------------------------------------------------ cases */

static const char* digits_dir(void) { return SMRT_SOURCE_DIR "/examples/models/digits"; }

static void test_signatures(const SmrtModel* model) {
  CHECK(SmrtModelSignatureCount(model) == 1);
  CHECK(strcmp(SmrtModelSignatureKey(model, 0), "serving_default") == 0);
  CHECK(SmrtModelSignatureKey(model, 1) == NULL);
  const SmrtSignature* sig = NULL;
  CHECK_OK(SmrtModelGetSignature(model, "serving_default", &sig));
  if (sig == NULL) return;
  CHECK(strcmp(SmrtSignatureKey(sig), "serving_default") == 0);
  CHECK(SmrtSignatureInputCount(sig) == 1);
  const SmrtTensorSpec* in = SmrtSignatureInput(sig, 0);
  CHECK(strcmp(SmrtTensorSpecName(in), "pixels") == 0);
  CHECK(strstr(SmrtTensorSpecTensorName(in), "pixels") != NULL);
  CHECK(SmrtTensorSpecDataType(in) == SMRT_FLOAT);
  CHECK(strcmp(SmrtDataTypeName(SmrtTensorSpecDataType(in)), "float32") == 0);
  CHECK(SmrtTensorSpecRank(in) == 2);
  CHECK(SmrtTensorSpecDim(in, 0) == -1);
  CHECK(SmrtTensorSpecDim(in, 1) == 64);
  CHECK(SmrtSignatureInput(sig, 1) == NULL);
  CHECK(SmrtSignatureOutputCount(sig) == 1);
  const SmrtTensorSpec* out = SmrtSignatureOutput(sig, 0);
  CHECK(strcmp(SmrtTensorSpecName(out), "probabilities") == 0);
  CHECK(SmrtTensorSpecDataType(out) == SMRT_FLOAT);
  CHECK(SmrtTensorSpecDim(out, 1) == 10);
}

/* Runs digits on its samples and compares with TensorFlow's probabilities. */
static void run_digits(const SmrtModel* model, const SmrtTensor* pixels, const char* what) {
  char* want_path = path_join(digits_dir(), "samples/expected_probabilities.npy");
  Array want = read_npy(want_path);
  const char* names[1] = {"pixels"};
  const SmrtTensor* inputs[1] = {pixels};
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
  if (out != NULL) {
    CHECK(SmrtOutputsCount(out) == 1);
    CHECK(strcmp(SmrtOutputsName(out, 0), "probabilities") == 0);
    const SmrtTensor* probs = NULL;
    CHECK_OK(SmrtOutputsFind(out, "probabilities", &probs));
    CHECK(probs == SmrtOutputsTensor(out, 0));
    expect_near(probs, &want, what);
    expect_error(SmrtOutputsFind(out, "logits", &probs), SMRT_NOT_FOUND, "unknown output",
                 "no output 'logits'", "probabilities", NULL);
  }
  SmrtOutputsDelete(out);
  free(want.data);
  free(want_path);
}

static int freed_views = 0;
static void free_view(void* data, size_t size, void* arg) {
  CHECK(arg == &freed_views);
  CHECK(size == 8 * 64 * sizeof(float));
  free(data);
  ++freed_views;
}

static void test_digits_from_dir(void) {
  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  CHECK_OK(SmrtLoadOptionsSet(opts, "tags", "serve"));
  const char* sigs[1] = {"serving_default"};
  CHECK_OK(SmrtLoadOptionsSetSignatures(opts, sigs, 1));
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(digits_dir(), opts, &model));
  SmrtLoadOptionsDelete(opts);
  if (model == NULL) return;
  test_signatures(model);

  char* in_path = path_join(digits_dir(), "samples/inputs.npy");
  Array pixels = read_npy(in_path);
  free(in_path);
  CHECK(pixels.rank == 2 && pixels.dims[0] == 8 && pixels.dims[1] == 64);

  /* An owning tensor. */
  SmrtTensor* owned = tensor_from(&pixels);
  run_digits(model, owned, "digits (owning tensor)");
  SmrtTensorDelete(owned);

  /* A view over malloc'd memory that smrt frees through the deallocator. */
  SmrtTensor* view = NULL;
  CHECK_OK(SmrtTensorCreateView(SMRT_FLOAT, pixels.dims, 2, pixels.data, pixels.byte_size,
                                free_view, &freed_views, &view));
  CHECK(SmrtTensorConstData(view) == pixels.data);
  run_digits(model, view, "digits (view)");
  CHECK(freed_views == 0);
  SmrtTensorDelete(view);
  CHECK(freed_views == 1);
  SmrtModelDelete(model);
}

/* Memory stats follow the tensors the model holds: weights after load, plus
 * outputs until the caller deletes them. */
static void test_memory_stats(void) {
  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  CHECK_OK(SmrtLoadOptionsSet(opts, "memory_limit_bytes", "1073741824"));
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(digits_dir(), opts, &model));
  SmrtLoadOptionsDelete(opts);
  if (model == NULL) return;
  SmrtMemoryStats loaded = {0};
  expect_error(SmrtModelGetMemoryStats(model, &loaded), SMRT_INVALID_ARGUMENT,
               "struct_size unset", "struct_size", NULL);
  loaded.struct_size = sizeof loaded;
  CHECK_OK(SmrtModelGetMemoryStats(model, &loaded));
  CHECK(loaded.bytes_in_use > 0); /* the weights */
  CHECK(loaded.limit_bytes == 1073741824u);
  CHECK(loaded.peak_bytes_in_use >= loaded.bytes_in_use);

  char* in_path = path_join(digits_dir(), "samples/inputs.npy");
  Array pixels = read_npy(in_path);
  free(in_path);
  SmrtTensor* x = tensor_from(&pixels);
  const char* names[1] = {"pixels"};
  const SmrtTensor* inputs[1] = {x};
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
  SmrtMemoryStats held = {.struct_size = sizeof held};
  CHECK_OK(SmrtModelGetMemoryStats(model, &held));
  /* The 8x10 float probabilities at least, until deleted. */
  CHECK(held.bytes_in_use >= loaded.bytes_in_use + 8 * 10 * sizeof(float));
  CHECK(held.allocation_count > loaded.allocation_count);
  SmrtOutputsDelete(out);
  SmrtMemoryStats freed = {.struct_size = sizeof freed};
  CHECK_OK(SmrtModelGetMemoryStats(model, &freed));
  CHECK(freed.bytes_in_use == loaded.bytes_in_use);
  CHECK(freed.peak_bytes_in_use >= held.bytes_in_use);
  SmrtModelResetPeakMemory(model);
  CHECK_OK(SmrtModelGetMemoryStats(model, &freed));
  CHECK(freed.peak_bytes_in_use == loaded.bytes_in_use);

  /* A caller built against an older, shorter struct gets only its prefix. */
  SmrtMemoryStats old;
  memset(&old, 0xAB, sizeof old);
  old.struct_size = offsetof(SmrtMemoryStats, limit_bytes);
  CHECK_OK(SmrtModelGetMemoryStats(model, &old));
  CHECK(old.bytes_in_use == loaded.bytes_in_use);
  CHECK(old.limit_bytes == 0xABABABABABABABABu);

  SmrtTensorDelete(x);
  free(pixels.data);
  SmrtModelDelete(model);
}

static void add_file(SmrtModelFiles* files, const char* dir, const char* rel) {
  char* path = path_join(dir, rel);
  Bytes b = read_file(path);
  CHECK_OK(SmrtModelFilesAdd(files, rel, b.data, b.size));
  free(b.data);
  free(path);
}

static void test_digits_from_memory(void) {
  SmrtModelFiles* files = SmrtModelFilesCreate();
  add_file(files, digits_dir(), "saved_model.pb");
  add_file(files, digits_dir(), "variables/variables.index");
  add_file(files, digits_dir(), "variables/variables.data-00000-of-00001");
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoadFromMemory(files, NULL, &model));
  SmrtModelFilesDelete(files); /* the model keeps its own copy */
  if (model == NULL) return;
  test_signatures(model);
  char* in_path = path_join(digits_dir(), "samples/inputs.npy");
  Array pixels = read_npy(in_path);
  free(in_path);
  SmrtTensor* x = tensor_from(&pixels);
  run_digits(model, x, "digits (from memory)");
  SmrtTensorDelete(x);
  free(pixels.data);
  SmrtModelDelete(model);

  /* Without the variables' data shard the load fails and names it. */
  files = SmrtModelFilesCreate();
  add_file(files, digits_dir(), "saved_model.pb");
  add_file(files, digits_dir(), "variables/variables.index");
  expect_error(SmrtModelLoadFromMemory(files, NULL, &model), SMRT_NOT_FOUND, "missing shard",
               "variables.data-00000-of-00001", NULL);
  expect_error(SmrtModelFilesAdd(files, "../etc/passwd", "x", 1), SMRT_INVALID_ARGUMENT,
               "path outside", "must be relative", NULL);
  SmrtModelFilesDelete(files);
}

/* ------------------------------------------------------- zoo cases */

/* One tensor of a zoo case manifest (tests/data/zoo/<m>/cases/<c>/manifest.json):
 * {"name": ..., "file": ... or "pattern": "mod1009_v1", "dtype": "DT_...",
 *  "shape": [...]}. */
typedef struct {
  char name[128];
  char file[128];
  SmrtDataType dtype;
  int pattern;
  int rank;
  int64_t dims[8];
} CaseTensor;

/* Copies the string value of "key" in [obj, end) into out; 0 when absent. */
static int json_string(const char* obj, const char* end, const char* key, char* out, size_t n) {
  char quoted[64];
  snprintf(quoted, sizeof(quoted), "\"%s\": \"", key);
  const char* p = strstr(obj, quoted);
  if (p == NULL || p >= end) return 0;
  p += strlen(quoted);
  const char* q = strchr(p, '"');
  if (q == NULL || q >= end || (size_t)(q - p) >= n) return 0;
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = '\0';
  return 1;
}

static SmrtDataType dtype_from_name(const char* name) {
  if (strcmp(name, "DT_FLOAT") == 0) return SMRT_FLOAT;
  if (strcmp(name, "DT_HALF") == 0) return SMRT_HALF;
  if (strcmp(name, "DT_INT32") == 0) return SMRT_INT32;
  if (strcmp(name, "DT_INT64") == 0) return SMRT_INT64;
  if (strcmp(name, "DT_BOOL") == 0) return SMRT_BOOL;
  if (strcmp(name, "DT_UINT8") == 0) return SMRT_UINT8;
  if (strcmp(name, "DT_STRING") == 0) return SMRT_STRING;
  if (strcmp(name, "DT_COMPLEX64") == 0) return SMRT_COMPLEX64;
  return SMRT_INVALID;
}

/* The objects of the "inputs" or "outputs" array; returns how many. */
static int parse_tensors(const char* json, const char* section, CaseTensor* out, int max) {
  char key[32];
  snprintf(key, sizeof(key), "\"%s\": [", section);
  const char* p = strstr(json, key);
  if (p == NULL) return 0;
  p += strlen(key);
  int n = 0;
  while (n < max) {
    while (*p == ' ' || *p == '\n' || *p == ',') ++p;
    if (*p != '{') break;
    const char* end = strchr(p, '}');
    if (end == NULL) break;
    CaseTensor* t = &out[n];
    memset(t, 0, sizeof(*t));
    char dtype[32] = "", pattern[32] = "";
    json_string(p, end, "name", t->name, sizeof(t->name));
    json_string(p, end, "file", t->file, sizeof(t->file));
    json_string(p, end, "dtype", dtype, sizeof(dtype));
    t->pattern = json_string(p, end, "pattern", pattern, sizeof(pattern)) &&
                 strcmp(pattern, "mod1009_v1") == 0;
    t->dtype = dtype_from_name(dtype);
    const char* shape = strstr(p, "\"shape\": [");
    if (shape != NULL && shape < end) {
      const char* d = shape + strlen("\"shape\": [");
      while (*d != ']' && t->rank < 8) {
        char* next = NULL;
        long long v = strtoll(d, &next, 10);
        if (next == d) break;
        t->dims[t->rank++] = v;
        d = next;
        while (*d == ',' || *d == ' ' || *d == '\n') ++d;
      }
    }
    ++n;
    p = end + 1;
  }
  return n;
}

static int64_t element_count(const CaseTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; ++i) n *= t->dims[i];
  return n;
}

/* A .strings golden: per element a uint32 little-endian length, the bytes. */
static SmrtTensor* read_strings_tensor(const char* path, const CaseTensor* spec) {
  Bytes b = read_file(path);
  SmrtTensor* t = NULL;
  CHECK_OK(SmrtTensorCreate(SMRT_STRING, spec->dims, spec->rank, &t));
  size_t pos = 0;
  for (int64_t i = 0; t != NULL && i < element_count(spec); ++i) {
    if (pos + 4 > b.size) {
      fprintf(stderr, "%s: too few strings\n", path);
      ++failures;
      break;
    }
    const unsigned char* p = (const unsigned char*)b.data + pos;
    size_t len = p[0] | (p[1] << 8) | (p[2] << 16) | ((size_t)p[3] << 24);
    CHECK(pos + 4 + len <= b.size);
    if (pos + 4 + len > b.size) break;
    CHECK_OK(SmrtTensorSetString(t, i, b.data + pos + 4, len));
    pos += 4 + len;
  }
  free(b.data);
  return t;
}

/* The case's tensor: generated, a .strings file or a .npy file (reshaped to
 * the manifest's shape, as the conformance suite does). */
static SmrtTensor* case_tensor(const char* dir, const CaseTensor* spec) {
  SmrtTensor* t = NULL;
  if (spec->pattern) {
    CHECK(spec->dtype == SMRT_FLOAT);
    CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, spec->dims, spec->rank, &t));
    float* x = t != NULL ? SmrtTensorData(t) : NULL;
    for (int64_t i = 0; x != NULL && i < element_count(spec); ++i) {
      x[i] = (float)(((i * 7919) % 1009) / 1008.0);
    }
    return t;
  }
  char* path = path_join(dir, spec->file);
  if (spec->dtype == SMRT_STRING) {
    t = read_strings_tensor(path, spec);
  } else {
    Array a = read_npy(path);
    CHECK(a.dtype == spec->dtype);
    CHECK_OK(SmrtTensorCreate(spec->dtype, spec->dims, spec->rank, &t));
    if (t != NULL && SmrtTensorByteSize(t) == a.byte_size) {
      memcpy(SmrtTensorData(t), a.data, a.byte_size);
    } else {
      fprintf(stderr, "%s: %zu bytes for shape of %lld elements\n", path, a.byte_size,
              (long long)element_count(spec));
      ++failures;
    }
    free(a.data);
  }
  free(path);
  return t;
}

/* An IEEE float16 value from its bits. */
static double half_value(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0    ? ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Element i of a float32 or float16 tensor. */
static double float_element(const SmrtTensor* t, int64_t i) {
  if (SmrtTensorDataType(t) == SMRT_HALF) {
    return half_value(((const uint16_t*)SmrtTensorConstData(t))[i]);
  }
  return ((const float*)SmrtTensorConstData(t))[i];
}

/* Same dtype, shape and values; floats within |got - want| <= tolerance *
 * max(1, |want|), the conformance suite's rule. */
static void expect_tensor_near(const SmrtTensor* got, const SmrtTensor* want, double tolerance,
                               const char* what) {
  if (got == NULL || want == NULL) {
    fprintf(stderr, "%s: missing tensor\n", what);
    ++failures;
    return;
  }
  int same = SmrtTensorDataType(got) == SmrtTensorDataType(want) &&
             SmrtTensorRank(got) == SmrtTensorRank(want);
  for (int i = 0; same && i < SmrtTensorRank(want); ++i) {
    same = SmrtTensorDim(got, i) == SmrtTensorDim(want, i);
  }
  if (!same) {
    fprintf(stderr, "%s: dtype or shape differs from TensorFlow's\n", what);
    ++failures;
    return;
  }
  int bad = 0;
  for (int64_t i = 0; i < SmrtTensorElementCount(want); ++i) {
    if (SmrtTensorDataType(want) == SMRT_STRING) {
      const char *g, *w;
      size_t gn, wn;
      CHECK_OK(SmrtTensorGetString(got, i, &g, &gn));
      CHECK_OK(SmrtTensorGetString(want, i, &w, &wn));
      bad += gn != wn || memcmp(g, w, gn) != 0;
    } else if (SmrtTensorDataType(want) == SMRT_FLOAT || SmrtTensorDataType(want) == SMRT_HALF) {
      double g = float_element(got, i);
      double w = float_element(want, i);
      if (!(fabs(g - w) <= tolerance * fmax(1.0, fabs(w)))) {
        if (bad++ < 3) fprintf(stderr, "%s: element %lld is %g, TensorFlow says %g\n", what,
                               (long long)i, g, w);
      }
    } else if (SmrtTensorDataType(want) == SMRT_COMPLEX64) {
      /* The real and the imaginary part each, as the conformance suite compares them. */
      for (int part = 0; part < 2; ++part) {
        double g = ((const float*)SmrtTensorConstData(got))[2 * i + part];
        double w = ((const float*)SmrtTensorConstData(want))[2 * i + part];
        if (!(fabs(g - w) <= tolerance * fmax(1.0, fabs(w)))) {
          if (bad++ < 3) fprintf(stderr, "%s: element %lld part %d is %g, TensorFlow says %g\n",
                                 what, (long long)i, part, g, w);
        }
      }
    }
  }
  if (SmrtTensorDataType(want) != SMRT_STRING && SmrtTensorDataType(want) != SMRT_FLOAT &&
      SmrtTensorDataType(want) != SMRT_HALF && SmrtTensorDataType(want) != SMRT_COMPLEX64) {
    bad += memcmp(SmrtTensorConstData(got), SmrtTensorConstData(want), SmrtTensorByteSize(want)) != 0;
  }
  if (bad > 0) {
    fprintf(stderr, "%s: %d elements differ from TensorFlow's\n", what, bad);
    ++failures;
  }
}

/* Runs one case directory against its model; returns 1 when it ran. */
static int run_zoo_case(const SmrtModel* model, const char* model_name, double tolerance,
                        const char* case_dir, const char* case_name) {
  char* manifest_path = path_join(case_dir, "manifest.json");
  Bytes manifest = read_file(manifest_path);
  free(manifest_path);
  if (manifest.data == NULL) return 0;
  char* json = realloc(manifest.data, manifest.size + 1);
  json[manifest.size] = '\0';
  char signature[128] = "";
  json_string(json, json + manifest.size, "signature", signature, sizeof(signature));
  CaseTensor ins[8], outs[8];
  int n_in = parse_tensors(json, "inputs", ins, 8);
  int n_out = parse_tensors(json, "outputs", outs, 8);
  free(json);
  CHECK(n_in > 0 && n_out > 0);

  char* in_dir = path_join(case_dir, "inputs");
  char* out_dir = path_join(case_dir, "outputs");
  const char* names[8];
  SmrtTensor* inputs[8];
  for (int i = 0; i < n_in; ++i) {
    names[i] = ins[i].name;
    inputs[i] = case_tensor(in_dir, &ins[i]);
  }
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, signature, names, (const SmrtTensor* const*)inputs, n_in, &out));
  for (int i = 0; out != NULL && i < n_out; ++i) {
    char what[512];
    snprintf(what, sizeof(what), "zoo %.200s %.100s %.100s", model_name, case_name, outs[i].name);
    const SmrtTensor* got = NULL;
    CHECK_OK(SmrtOutputsFind(out, outs[i].name, &got));
    SmrtTensor* want = case_tensor(out_dir, &outs[i]);
    expect_tensor_near(got, want, tolerance, what);
    SmrtTensorDelete(want);
  }
  SmrtOutputsDelete(out);
  for (int i = 0; i < n_in; ++i) SmrtTensorDelete(inputs[i]);
  free(in_dir);
  free(out_dir);
  return 1;
}

/* model.json's "tolerance" (a number, or null for the default 1e-4). */
static double zoo_tolerance(const char* model_dir) {
  char* path = path_join(model_dir, "model.json");
  Bytes b = read_file(path);
  free(path);
  double tolerance = 1e-4;
  char* json = b.data != NULL ? realloc(b.data, b.size + 1) : NULL;
  if (json != NULL) {
    json[b.size] = '\0';
    const char* t = strstr(json, "\"tolerance\": ");
    if (t != NULL) {
      char* end = NULL;
      double v = strtod(t + strlen("\"tolerance\": "), &end);
      if (end != t + strlen("\"tolerance\": ") && v > 0) tolerance = v;
    }
    free(json);
  }
  return tolerance;
}

/* Every case of every committed zoo model (tests/data/zoo), as TensorFlow
 * answered it, within the model's tolerance. */
static void test_zoo(void) {
  const char* zoo = SMRT_SOURCE_DIR "/tests/data/zoo";
  DIR* models = opendir(zoo);
  CHECK(models != NULL);
  if (models == NULL) return;
  int cases = 0;
  for (struct dirent* m = readdir(models); m != NULL; m = readdir(models)) {
    if (m->d_name[0] == '.') continue;
    char* model_dir = path_join(zoo, m->d_name);
    char* saved_model = path_join(model_dir, "saved_model");
    char* cases_dir = path_join(model_dir, "cases");
    DIR* cs = opendir(cases_dir);
    if (cs != NULL) {
      double tolerance = zoo_tolerance(model_dir);
      SmrtModel* model = NULL;
      CHECK_OK(SmrtModelLoad(saved_model, NULL, &model));
      for (struct dirent* c = readdir(cs); model != NULL && c != NULL; c = readdir(cs)) {
        if (c->d_name[0] == '.') continue;
        char* case_dir = path_join(cases_dir, c->d_name);
        cases += run_zoo_case(model, m->d_name, tolerance, case_dir, c->d_name);
        free(case_dir);
      }
      SmrtModelDelete(model);
      closedir(cs);
    }
    free(cases_dir);
    free(saved_model);
    free(model_dir);
  }
  closedir(models);
  CHECK(cases >= 20);
  printf("%d zoo cases checked\n", cases);
}

/* String inputs: the zoo's TextVectorization model on its .strings case
 * (per element: uint32 little-endian length, then the bytes). */
static void test_zoo_strings(void) {
  const char* dir = SMRT_SOURCE_DIR "/tests/data/zoo/text_vectorization";
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(SMRT_SOURCE_DIR "/tests/data/zoo/text_vectorization/saved_model", NULL,
                         &model));
  if (model == NULL) return;
  char* text_path = path_join(dir, "cases/b8/inputs/text.strings");
  char* logits_path = path_join(dir, "cases/b8/outputs/logits.npy");
  Bytes text = read_file(text_path);
  Array want = read_npy(logits_path);
  int64_t dims[2] = {8, 1};
  SmrtTensor* t = NULL;
  CHECK_OK(SmrtTensorCreate(SMRT_STRING, dims, 2, &t));
  CHECK(SmrtTensorData(t) == NULL);
  size_t pos = 0;
  for (int64_t i = 0; i < 8 && t != NULL; ++i) {
    CHECK(pos + 4 <= text.size);
    if (pos + 4 > text.size) break;
    const unsigned char* p = (const unsigned char*)text.data + pos;
    size_t len = p[0] | (p[1] << 8) | (p[2] << 16) | ((size_t)p[3] << 24);
    CHECK_OK(SmrtTensorSetString(t, i, text.data + pos + 4, len));
    pos += 4 + len;
  }
  const char* s = NULL;
  size_t n = 0;
  CHECK_OK(SmrtTensorGetString(t, 0, &s, &n));
  CHECK(n == 22 && memcmp(s, "great acting, fun plot", 22) == 0);
  expect_error(SmrtTensorGetString(t, 8, &s, &n), SMRT_OUT_OF_RANGE, "string index", "index 8",
               NULL);

  const char* names[1] = {"text"};
  const SmrtTensor* inputs[1] = {t};
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
  const SmrtTensor* logits = NULL;
  if (out != NULL) CHECK_OK(SmrtOutputsFind(out, "logits", &logits));
  expect_near(logits, &want, "zoo text_vectorization b8");
  SmrtOutputsDelete(out);
  SmrtTensorDelete(t);
  free(text.data);
  free(want.data);
  free(text_path);
  free(logits_path);
  SmrtModelDelete(model);
}

/* TensorFlow Serving's half_plus_two (y = x / 2 + 2) from the shared models,
 * with its committed golden; skipped when the shared models are absent. */
static void test_golden_half_plus_two(void) {
  const char* shared = getenv("SMRT_SHARED_DIR");
  if (shared == NULL || *shared == '\0') shared = SMRT_SOURCE_DIR "/../shared";
  char* models = path_join(shared, "models");
  char* dir = path_join(models, "tf-serving/saved_model_half_plus_two_cpu/00000123");
  char* pb = path_join(dir, "saved_model.pb");
  FILE* f = fopen(pb, "rb");
  if (f == NULL) {
    printf("skipped: %s is missing (set SMRT_SHARED_DIR)\n", pb);
  } else {
    fclose(f);
    const char* golden =
        SMRT_SOURCE_DIR "/tests/data/goldens/tf-serving__saved_model_half_plus_two_cpu__00000123";
    char* x_path = path_join(golden, "serving_default/inputs/x.npy");
    char* y_path = path_join(golden, "serving_default/outputs/y.npy");
    Array x = read_npy(x_path);
    Array y = read_npy(y_path);
    SmrtModel* model = NULL;
    CHECK_OK(SmrtModelLoad(dir, NULL, &model));
    if (model != NULL) {
      SmrtTensor* t = tensor_from(&x);
      const char* names[1] = {"x"};
      const SmrtTensor* inputs[1] = {t};
      SmrtOutputs* out = NULL;
      CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
      const SmrtTensor* got = NULL;
      if (out != NULL) CHECK_OK(SmrtOutputsFind(out, "y", &got));
      expect_near(got, &y, "half_plus_two golden");
      SmrtOutputsDelete(out);
      SmrtTensorDelete(t);
      SmrtModelDelete(model);
    }
    free(x.data);
    free(y.data);
    free(x_path);
    free(y_path);
  }
  free(pb);
  free(dir);
  free(models);
}

static int freed_on_error = 0;
static void count_free(void* data, size_t size, void* arg) {
  (void)data;
  (void)size;
  (void)arg;
  ++freed_on_error;
}

static void test_errors(void) {
  SmrtModel* model = NULL;
  expect_error(SmrtModelLoad("/no/such/model", NULL, &model), SMRT_NOT_FOUND, "bad dir",
               "/no/such/model", "does not exist", NULL);
  CHECK(model == NULL);
  expect_error(SmrtModelLoad(NULL, NULL, &model), SMRT_INVALID_ARGUMENT, "NULL dir", "NULL",
               NULL);

  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  expect_error(SmrtLoadOptionsSet(opts, "intra_op_thread", "2"), SMRT_INVALID_ARGUMENT,
               "unknown option", "unknown load option 'intra_op_thread'", "tags", "signatures",
               NULL);
  CHECK_OK(SmrtLoadOptionsSet(opts, "signatures", "predict"));
  expect_error(SmrtModelLoad(digits_dir(), opts, &model), SMRT_NOT_FOUND,
               "unknown signature at load", "no signature 'predict'", "serving_default", NULL);
  const char* tags[1] = {"train"};
  CHECK_OK(SmrtLoadOptionsSetTags(opts, tags, 1));
  CHECK_OK(SmrtLoadOptionsSet(opts, "signatures", ""));
  expect_error(SmrtModelLoad(digits_dir(), opts, &model), SMRT_NOT_FOUND, "unknown tags",
               "train", NULL);
  SmrtLoadOptionsDelete(opts);

  CHECK_OK(SmrtModelLoad(digits_dir(), NULL, &model));
  if (model == NULL) return;
  const SmrtSignature* sig = NULL;
  expect_error(SmrtModelGetSignature(model, "predict", &sig), SMRT_NOT_FOUND,
               "unknown signature", "no signature 'predict'", "serving_default", NULL);

  int64_t good_dims[2] = {2, 64};
  int64_t bad_dims[2] = {2, 63};
  SmrtTensor* good = NULL;
  SmrtTensor* wrong_dtype = NULL;
  SmrtTensor* wrong_shape = NULL;
  CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, good_dims, 2, &good));
  CHECK_OK(SmrtTensorCreate(SMRT_INT32, good_dims, 2, &wrong_dtype));
  CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, bad_dims, 2, &wrong_shape));
  const char* pixels[1] = {"pixels"};
  const char* other[1] = {"image"};
  SmrtOutputs* out = NULL;
  const SmrtTensor* in[1] = {good};
  expect_error(SmrtModelRun(model, "predict", pixels, in, 1, &out), SMRT_NOT_FOUND,
               "run unknown signature", "no signature 'predict'", NULL);
  expect_error(SmrtModelRun(model, "serving_default", other, in, 1, &out),
               SMRT_INVALID_ARGUMENT, "unknown input", "has no input 'image'", "pixels", NULL);
  expect_error(SmrtModelRun(model, "serving_default", NULL, NULL, 0, &out),
               SMRT_INVALID_ARGUMENT, "missing input", "input 'pixels' is missing", NULL);
  in[0] = wrong_dtype;
  expect_error(SmrtModelRun(model, "serving_default", pixels, in, 1, &out),
               SMRT_INVALID_ARGUMENT, "wrong dtype", "input 'pixels' must be DT_FLOAT",
               "got DT_INT32", NULL);
  in[0] = wrong_shape;
  expect_error(SmrtModelRun(model, "serving_default", pixels, in, 1, &out),
               SMRT_INVALID_ARGUMENT, "wrong shape", "dim 1 must be 64", "(2, 63)", NULL);
  CHECK(out == NULL);
  SmrtTensorDelete(good);
  SmrtTensorDelete(wrong_dtype);
  SmrtTensorDelete(wrong_shape);
  SmrtModelDelete(model);

  /* Tensor creation. */
  SmrtTensor* t = NULL;
  int64_t neg[1] = {-2};
  expect_error(SmrtTensorCreate(SMRT_FLOAT, neg, 1, &t), SMRT_INVALID_ARGUMENT, "negative dim",
               NULL);
  static float buffer[6];
  int64_t dims[2] = {2, 3};
  expect_error(SmrtTensorCreateView(SMRT_FLOAT, dims, 2, buffer, 20, count_free, NULL, &t),
               SMRT_INVALID_ARGUMENT, "view size", NULL);
  CHECK(freed_on_error == 1); /* ownership passed even though creation failed */
  CHECK(t == NULL);
  CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, NULL, 0, &t)); /* a scalar */
  CHECK(SmrtTensorRank(t) == 0 && SmrtTensorElementCount(t) == 1);
  expect_error(SmrtTensorSetString(t, 0, "x", 1), SMRT_INVALID_ARGUMENT, "string on float",
               "float32, not string", NULL);
  SmrtTensorDelete(t);

  /* Deadlines and cancellation: tf1_while loops n times. */
  {
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/tests/data/zoo/tf1_while/saved_model", SMRT_SOURCE_DIR);
    SmrtLoadOptions* no_limit = SmrtLoadOptionsCreate();
    CHECK_OK(SmrtLoadOptionsSet(no_limit, "max_while_iterations", "0"));
    SmrtModel* loop = NULL;
    CHECK_OK(SmrtModelLoad(dir, no_limit, &loop));
    SmrtLoadOptionsDelete(no_limit);
    if (loop != NULL) {
      SmrtTensor* n = NULL;
      SmrtTensor* x = NULL;
      int64_t x_dims[2] = {3, 4};
      CHECK_OK(SmrtTensorCreate(SMRT_INT32, NULL, 0, &n));
      CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, x_dims, 2, &x));
      *(int32_t*)SmrtTensorData(n) = 2000000000;
      const char* names[2] = {"n", "x"};
      const SmrtTensor* loop_in[2] = {n, x};
      SmrtRunOptions options;
      memset(&options, 0, sizeof(options));
      options.struct_size = sizeof(options);
      options.timeout_seconds = 0.05;
      expect_error(SmrtModelRunWithOptions(loop, "serving_default", names, loop_in, 2, &options,
                                           &out),
                   SMRT_DEADLINE_EXCEEDED, "timeout", "deadline", NULL);
      SmrtCancellation* cancel = SmrtCancellationCreate();
      SmrtCancellationCancel(cancel);
      options.timeout_seconds = 0;
      options.cancellation = cancel;
      expect_error(SmrtModelRunWithOptions(loop, "serving_default", names, loop_in, 2, &options,
                                           &out),
                   SMRT_CANCELLED, "cancelled", "cancelled", NULL);
      SmrtCancellationDelete(cancel);
      options.cancellation = NULL;
      options.timeout_seconds = -1;
      expect_error(SmrtModelRunWithOptions(loop, "serving_default", names, loop_in, 2, &options,
                                           &out),
                   SMRT_INVALID_ARGUMENT, "negative timeout", "timeout_seconds", NULL);
      *(int32_t*)SmrtTensorData(n) = 3;
      CHECK_OK(SmrtModelRunWithOptions(loop, "serving_default", names, loop_in, 2, NULL, &out));
      SmrtOutputsDelete(out);
      out = NULL;
      SmrtTensorDelete(n);
      SmrtTensorDelete(x);
      SmrtModelDelete(loop);
    }
  }

  CHECK(SmrtStatusCode(NULL) == SMRT_OK);
  CHECK(strcmp(SmrtStatusMessage(NULL), "") == 0);
  CHECK(strcmp(SmrtCodeName(SMRT_DATA_LOSS), "DATA_LOSS") == 0);
  SmrtStatusDelete(NULL);
  SmrtModelDelete(NULL);
  SmrtTensorDelete(NULL);
  SmrtOutputsDelete(NULL);
}

/* ------------------------------------------------------------ logging */

typedef struct {
  atomic_int count;
  atomic_int worst; /* the highest level seen, -1 for none */
  char first[1024];
} LogCapture;

/* Any thread may log; only the first message is copied. */
static void capture_log(int level, const char* message, void* user_data) {
  LogCapture* c = (LogCapture*)user_data;
  if (atomic_fetch_add(&c->count, 1) == 0) snprintf(c->first, sizeof(c->first), "%s", message);
  int worst = atomic_load(&c->worst);
  while (level > worst && !atomic_compare_exchange_weak(&c->worst, &worst, level)) {
  }
}

/* Loads digits with `cache_dir` and runs it once: smrt measures the dense
 * layers' kernels and stores each choice in the tuning cache. */
static void load_and_run_digits(const char* cache_dir) {
  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  CHECK_OK(SmrtLoadOptionsSet(opts, "cache_dir", cache_dir));
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(digits_dir(), opts, &model));
  SmrtLoadOptionsDelete(opts);
  if (model == NULL) return;
  int64_t dims[2] = {1, 64};
  SmrtTensor* x = NULL;
  CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, dims, 2, &x));
  const char* names[1] = {"pixels"};
  const SmrtTensor* inputs[1] = {x};
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
  SmrtOutputsDelete(out);
  SmrtTensorDelete(x);
  SmrtModelDelete(model);
}

static void load_mlp_float16(const char* log_level) {
  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  CHECK_OK(SmrtLoadOptionsSet(opts, "precision", "float16"));
  if (log_level != NULL) CHECK_OK(SmrtLoadOptionsSet(opts, "log_level", log_level));
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(SMRT_SOURCE_DIR "/tests/data/zoo/mlp_bn_dropout/saved_model", opts,
                         &model));
  SmrtLoadOptionsDelete(opts);
  SmrtModelDelete(model);
}

/* A tuning cache that cannot be written is a warning per stored choice: it
 * reaches the callback, without the stderr prefix, and SMRT_LOG_ERROR
 * silences it. */
static void test_logging(void) {
  char file[] = "/tmp/smrt_c_api_log_XXXXXX";
  int fd = mkstemp(file);
  CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  char cache_dir[64];
  snprintf(cache_dir, sizeof(cache_dir), "%s/cache", file); /* under a file: unwritable */

  unsetenv("SMRT_CPU_KERNELS"); /* "measure", which stores choices */
  LogCapture got;
  atomic_init(&got.count, 0);
  atomic_init(&got.worst, -1);
  got.first[0] = '\0';
  SmrtSetLogCallback(capture_log, &got);
  SmrtSetLogLevel(SMRT_LOG_WARNING); /* whatever SMRT_LOG_LEVEL says */
  CHECK(SmrtGetLogLevel() == SMRT_LOG_WARNING);
  load_and_run_digits(cache_dir);
  CHECK(atomic_load(&got.count) > 0);
  CHECK(atomic_load(&got.worst) == SMRT_LOG_WARNING);
  if (strstr(got.first, "cannot write tuning cache ") != got.first ||
      strstr(got.first, cache_dir) == NULL) {
    fprintf(stderr, "unexpected first message: \"%s\"\n", got.first);
    ++failures;
  }

  SmrtSetLogLevel(SMRT_LOG_ERROR);
  atomic_store(&got.count, 0);
  load_and_run_digits(cache_dir);
  CHECK(atomic_load(&got.count) == 0);

  /* Levels outside the range are clamped to it. */
  SmrtSetLogLevel(99);
  CHECK(SmrtGetLogLevel() == SMRT_LOG_ERROR);
  SmrtSetLogLevel(-1);
  CHECK(SmrtGetLogLevel() == SMRT_LOG_DEBUG);

  /* A model's own level (load option "log_level"): ERROR silences the
   * float16 fallback warning of that load alone. */
  SmrtSetLogLevel(SMRT_LOG_WARNING);
  atomic_store(&got.count, 0);
  load_mlp_float16("error");
  CHECK(atomic_load(&got.count) == 0);
  load_mlp_float16(NULL);
  CHECK(atomic_load(&got.count) == 1);
  CHECK(strstr(got.first, "precision=float16 on the CPU") != NULL);
  CHECK(SmrtGetLogLevel() == SMRT_LOG_WARNING);

  SmrtSetLogLevel(SMRT_LOG_WARNING);
  SmrtSetLogCallback(NULL, NULL);
  unlink(file);
}

/* ---------------------------------------------------------- custom ops */

/* Addons>Gelu (tanh form) registered by the program itself
 * (SmrtLoadOptionsAddCustomOps), on examples/custom_op/model. */
static const SmrtCustomOpApi* g_custom_api;
static int g_gelu_destroyed;

static SmrtStatus* gelu_shape(SmrtShapeContext* c, void* user_data) {
  (void)user_data;
  int64_t dims[8];
  const int rank = g_custom_api->ShapeInputRank(c, 0);
  if (rank > 8) return g_custom_api->CreateStatus(SMRT_INVALID_ARGUMENT, "rank over 8");
  for (int d = 0; d < rank; ++d) dims[d] = g_custom_api->ShapeInputDim(c, 0, d);
  return g_custom_api->ShapeSetOutput(c, 0, SMRT_FLOAT, dims, rank);
}

static SmrtStatus* gelu_compute(SmrtKernelContext* c, void* user_data) {
  (void)user_data;
  SmrtKernelTensor x;
  SmrtStatus* s = g_custom_api->KernelGetInput(c, 0, &x);
  if (s != NULL) return s;
  void* out = NULL;
  s = g_custom_api->KernelAllocateOutput(c, 0, SMRT_FLOAT, x.dims, x.rank, &out);
  if (s != NULL) return s;
  const float* in = (const float*)x.data;
  float* y = (float*)out;
  for (int64_t i = 0; i < x.element_count; ++i) {
    const double v = in[i];
    y[i] = (float)(0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
  }
  return NULL;
}

static void gelu_destroy(void* user_data) { ++*(int*)user_data; }

static SmrtStatus* register_gelu(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  g_custom_api = api;
  static const SmrtDataType kFloat[] = {SMRT_FLOAT};
  static const SmrtCustomOpArg kIn[] = {{"features", kFloat, 1}};
  static const SmrtCustomOpArg kOut[] = {{"activations", kFloat, 1}};
  SmrtCustomOp op;
  memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.name = "Addons>Gelu";
  op.num_inputs = 1;
  op.inputs = kIn;
  op.num_outputs = 1;
  op.outputs = kOut;
  op.shape_fn = gelu_shape;
  op.compute_fn = gelu_compute;
  op.user_data = &g_gelu_destroyed;
  op.destroy_user_data = gelu_destroy;
  return api->RegisterOp(registry, &op);
}

static void test_custom_ops(void) {
  const char* dir = SMRT_SOURCE_DIR "/examples/custom_op/model";
  SmrtModel* model = NULL;
  expect_error(SmrtModelLoad(dir, NULL, &model), SMRT_UNIMPLEMENTED, "no custom op",
               "Addons>Gelu", "custom_op_libraries", NULL);
  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  expect_error(SmrtLoadOptionsAddCustomOps(opts, NULL), SMRT_INVALID_ARGUMENT, "NULL function",
               "register_fn is NULL", NULL);
  CHECK_OK(SmrtLoadOptionsAddCustomOps(opts, register_gelu));
  CHECK_OK(SmrtModelLoad(dir, opts, &model));
  SmrtLoadOptionsDelete(opts);
  CHECK(SmrtGetCustomOpApi()->version == SMRT_CUSTOM_OP_API_VERSION);
  if (model == NULL) return;
  /* make_model.py's input and NumPy's tanh-form GELU of it. */
  const float x_values[8] = {-3.0f,         2.09523821f, 1.18452382f,  0.273809522f,
                             -0.636904776f, -1.5476191f, -2.45833325f, 2.63690472f};
  const float want[8] = {-0.00363739208f, 2.0575472f,     1.04441816f,    0.166442808f,
                         -0.166968968f,   -0.0943874818f, -0.0167329492f, 2.62634381f};
  int64_t dims[2] = {2, 4};
  SmrtTensor* x = NULL;
  CHECK_OK(SmrtTensorCreate(SMRT_FLOAT, dims, 2, &x));
  if (x != NULL) memcpy(SmrtTensorData(x), x_values, sizeof x_values);
  const char* names[1] = {"x"};
  const SmrtTensor* inputs[1] = {x};
  SmrtOutputs* out = NULL;
  CHECK_OK(SmrtModelRun(model, "serving_default", names, inputs, 1, &out));
  const SmrtTensor* y = NULL;
  if (out != NULL) CHECK_OK(SmrtOutputsFind(out, "y", &y));
  if (y != NULL) {
    const float* got = (const float*)SmrtTensorConstData(y);
    for (int i = 0; i < 8; ++i) CHECK(fabsf(got[i] - want[i]) < 1e-6f);
  }
  SmrtOutputsDelete(out);
  SmrtTensorDelete(x);
  CHECK(g_gelu_destroyed == 0);
  SmrtModelDelete(model);
  CHECK(g_gelu_destroyed == 1); /* user_data lives until the model goes */

  SmrtStatus* own = SmrtStatusCreate(SMRT_NOT_FOUND, "mine");
  CHECK(SmrtStatusCode(own) == SMRT_NOT_FOUND && strcmp(SmrtStatusMessage(own), "mine") == 0);
  SmrtStatusDelete(own);
  CHECK(SmrtStatusCreate(SMRT_OK, "fine") == NULL);
}

/* SmrtQuantize: the digits model calibrated on its samples (two calls), then
 * loaded with the file: its probabilities stay near float32's; a QAT export
 * needs no calls; unknown keys and no calls are refused. */
static void test_quantize(void) {
  char* in_path = path_join(digits_dir(), "samples/inputs.npy");
  Array pixels = read_npy(in_path);
  free(in_path);
  SmrtTensor* x = tensor_from(&pixels);
  const char* names[1] = {"pixels"};
  const SmrtTensor* calls[2] = {x, x};
  char out_path[] = "/tmp/smrt_c_api_quant_XXXXXX";
  int fd = mkstemp(out_path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  SmrtQuantizeOptions* qopts = SmrtQuantizeOptionsCreate();
  CHECK_OK(SmrtQuantizeOptionsSet(qopts, "signature", "serving_default"));
  CHECK_OK(SmrtQuantizeOptionsSet(qopts, "tags", "serve"));
  int recorded = -1;
  CHECK_OK(SmrtQuantize(digits_dir(), names, 1, calls, 2, out_path, qopts, &recorded));
  CHECK(recorded > 0);

  SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
  CHECK_OK(SmrtLoadOptionsSet(opts, "quantization", out_path));
  SmrtModel* model = NULL;
  CHECK_OK(SmrtModelLoad(digits_dir(), opts, &model));
  SmrtLoadOptionsDelete(opts);
  if (model != NULL) {
    char* want_path = path_join(digits_dir(), "samples/expected_probabilities.npy");
    Array want = read_npy(want_path);
    SmrtOutputs* out = NULL;
    CHECK_OK(SmrtModelRun(model, "serving_default", names, calls, 1, &out));
    const SmrtTensor* probs = NULL;
    if (out != NULL) CHECK_OK(SmrtOutputsFind(out, "probabilities", &probs));
    if (probs != NULL) {
      const float* got = (const float*)SmrtTensorConstData(probs);
      const float* w = (const float*)want.data;
      for (size_t i = 0; i < want.byte_size / sizeof(float); ++i) CHECK(fabsf(got[i] - w[i]) < 0.1f);
    }
    SmrtOutputsDelete(out);
    free(want.data);
    free(want_path);
    SmrtModelDelete(model);
  }

  SmrtQuantizeOptions* qat = SmrtQuantizeOptionsCreate();
  CHECK_OK(SmrtQuantizeOptionsSet(qat, "from_fake_quant", "true"));
  recorded = -1;
  CHECK_OK(SmrtQuantize(SMRT_SOURCE_DIR "/tests/data/zoo/fake_quant_module/saved_model", NULL, 0,
                        NULL, 0, out_path, qat, &recorded));
  CHECK(recorded == 1);
  SmrtQuantizeOptionsDelete(qat);

  expect_error(SmrtQuantizeOptionsSet(qopts, "percentil", "99"), SMRT_INVALID_ARGUMENT,
               "unknown quantize key", "percentil", "from_fake_quant", NULL);
  expect_error(SmrtQuantizeOptionsSet(qopts, "from_fake_quant", "maybe"), SMRT_INVALID_ARGUMENT,
               "bad bool", "true or false", NULL);
  expect_error(SmrtQuantize(digits_dir(), names, 1, calls, 0, out_path, qopts, NULL),
               SMRT_INVALID_ARGUMENT, "no calls", "at least one calibration call", NULL);
  SmrtQuantizeOptionsDelete(qopts);
  SmrtTensorDelete(x);
  free(pixels.data);
  unlink(out_path);
}

int main(void) {
  printf("smrt %s\n", SmrtVersion());
  test_digits_from_dir();
  test_digits_from_memory();
  test_quantize();
  test_memory_stats();
  test_zoo();
  test_zoo_strings();
  test_golden_half_plus_two();
  test_errors();
  test_logging();
  test_custom_ops();
  if (failures > 0) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
