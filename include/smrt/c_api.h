/* smrt's C API: the stable ABI for calling SavedModel signatures from C and
 * from any language with a C FFI.
 *
 * Usage:
 *
 *   // Load (options may be NULL for tags {"serve"}, every signature).
 *   SmrtLoadOptions* opts = SmrtLoadOptionsCreate();
 *   SmrtStatus* s = SmrtLoadOptionsSet(opts, "signatures", "serving_default");
 *   SmrtModel* model = NULL;
 *   if (s == NULL) s = SmrtModelLoad("/models/digits", opts, &model);
 *   SmrtLoadOptionsDelete(opts);
 *   if (s != NULL) {
 *     fprintf(stderr, "%s\n", SmrtStatusMessage(s));
 *     SmrtStatusDelete(s);
 *     return 1;
 *   }
 *
 *   // Inspect a signature: its inputs and outputs, with dtype and shape.
 *   const SmrtSignature* sig = NULL;
 *   s = SmrtModelGetSignature(model, "serving_default", &sig);
 *   for (int i = 0; i < SmrtSignatureInputCount(sig); ++i) {
 *     const SmrtTensorSpec* in = SmrtSignatureInput(sig, i);
 *     printf("%s %s rank %d\n", SmrtTensorSpecName(in),
 *            SmrtDataTypeName(SmrtTensorSpecDataType(in)), SmrtTensorSpecRank(in));
 *   }
 *
 *   // An input tensor: owning (SmrtTensorCreate), or wrapping memory the
 *   // caller owns (SmrtTensorCreateView, with an optional deleter).
 *   int64_t dims[2] = {1, 64};
 *   SmrtTensor* x = NULL;
 *   s = SmrtTensorCreate(SMRT_FLOAT, dims, 2, &x);
 *   float* pixels = (float*)SmrtTensorData(x);  // fill 64 floats
 *
 *   // Run by signature key with named inputs; read outputs by name or index.
 *   const char* names[1] = {"pixels"};
 *   const SmrtTensor* inputs[1] = {x};
 *   SmrtOutputs* out = NULL;
 *   s = SmrtModelRun(model, "serving_default", names, inputs, 1, &out);
 *   const SmrtTensor* y = NULL;
 *   if (s == NULL) s = SmrtOutputsFind(out, "probabilities", &y);
 *   const float* probs = (const float*)SmrtTensorConstData(y);
 *
 *   // Free everything that was created.
 *   SmrtOutputsDelete(out);
 *   SmrtTensorDelete(x);
 *   SmrtModelDelete(model);
 *
 * Conventions:
 *   - Every call that can fail returns SmrtStatus*: NULL on success, else a
 *     status (code + message naming the file, signature, input or op at
 *     fault) that the caller frees with SmrtStatusDelete. Out-parameters are
 *     set only on success. No C++ exception crosses this boundary.
 *   - Objects made by a *Create, *Load or *Run call are owned by the caller
 *     and freed by the matching *Delete, which accepts NULL. Pointers
 *     returned by accessors (names, specs, signatures, output tensors) are
 *     borrowed: valid until their owner is deleted.
 *   - A loaded SmrtModel may be run from any number of threads at once.
 *     Tensors, outputs and options are not synchronised.
 */
#ifndef SMRT_C_API_H_
#define SMRT_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SMRT_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define SMRT_CAPI_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0": the library's version (project version). */
SMRT_CAPI_EXPORT const char* SmrtVersion(void);

/* ---------------------------------------------------------------- Status */

/* The same numbers as absl::StatusCode (and TensorFlow's error codes). */
typedef enum SmrtCode {
  SMRT_OK = 0,
  SMRT_CANCELLED = 1,
  SMRT_UNKNOWN = 2,
  SMRT_INVALID_ARGUMENT = 3,    /* malformed model or input */
  SMRT_DEADLINE_EXCEEDED = 4,
  SMRT_NOT_FOUND = 5,           /* missing file, signature, tensor */
  SMRT_ALREADY_EXISTS = 6,
  SMRT_PERMISSION_DENIED = 7,
  SMRT_RESOURCE_EXHAUSTED = 8,  /* out of memory or over a limit */
  SMRT_FAILED_PRECONDITION = 9,
  SMRT_ABORTED = 10,
  SMRT_OUT_OF_RANGE = 11,
  SMRT_UNIMPLEMENTED = 12,      /* an op or dtype smrt lacks */
  SMRT_INTERNAL = 13,           /* a backend failed */
  SMRT_UNAVAILABLE = 14,
  SMRT_DATA_LOSS = 15           /* corrupt checkpoint */
} SmrtCode;

typedef struct SmrtStatus SmrtStatus;

/* SMRT_OK for NULL. */
SMRT_CAPI_EXPORT SmrtCode SmrtStatusCode(const SmrtStatus* status);
/* "" for NULL. Valid until the status is deleted. */
SMRT_CAPI_EXPORT const char* SmrtStatusMessage(const SmrtStatus* status);
/* "INVALID_ARGUMENT", "NOT_FOUND"... */
SMRT_CAPI_EXPORT const char* SmrtCodeName(SmrtCode code);
SMRT_CAPI_EXPORT void SmrtStatusDelete(SmrtStatus* status);
/* A status of the caller's own (custom ops return them: smrt/custom_op.h):
 * NULL for SMRT_OK; `message` (may be NULL) is copied. Free it with
 * SmrtStatusDelete, unless it is handed to smrt. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtStatusCreate(SmrtCode code, const char* message);

/* ------------------------------------------------------------- DataType */

/* The same numbers as TensorFlow's DataType enum. */
typedef enum SmrtDataType {
  SMRT_INVALID = 0,
  SMRT_FLOAT = 1,
  SMRT_DOUBLE = 2,
  SMRT_INT32 = 3,
  SMRT_UINT8 = 4,
  SMRT_INT16 = 5,
  SMRT_INT8 = 6,
  SMRT_STRING = 7,
  SMRT_COMPLEX64 = 8,
  SMRT_INT64 = 9,
  SMRT_BOOL = 10,
  SMRT_BFLOAT16 = 14,
  SMRT_UINT16 = 17,
  SMRT_COMPLEX128 = 18,
  SMRT_HALF = 19,
  SMRT_RESOURCE = 20,
  SMRT_VARIANT = 21,
  SMRT_UINT32 = 22,
  SMRT_UINT64 = 23
} SmrtDataType;

/* "float32", "int64", "string"...; "invalid" for unknown values. */
SMRT_CAPI_EXPORT const char* SmrtDataTypeName(SmrtDataType type);
/* Bytes per element; 0 for SMRT_STRING and types that are not plain bytes. */
SMRT_CAPI_EXPORT size_t SmrtDataTypeSize(SmrtDataType type);

/* --------------------------------------------------------------- Tensor */

typedef struct SmrtTensor SmrtTensor;

/* Called once when a view tensor is deleted: frees (or releases) the
 * caller's memory. */
typedef void (*SmrtDeallocator)(void* data, size_t byte_size, void* arg);

/* A tensor owning zero-filled, 64-byte aligned storage (empty strings for
 * SMRT_STRING). dims may be NULL when rank is 0. INVALID_ARGUMENT for a
 * negative rank or dim or an unsupported dtype; RESOURCE_EXHAUSTED when the
 * allocation fails. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtTensorCreate(SmrtDataType type, const int64_t* dims, int rank,
                                              SmrtTensor** out);

/* A tensor over `byte_size` bytes at `data`, which the caller keeps valid
 * until the tensor is deleted; smrt never writes to it when it is an input.
 * byte_size must equal the element count times SmrtDataTypeSize (fixed-size
 * dtypes only). `deallocator` (may be NULL) is called with (data, byte_size,
 * deallocator_arg) by SmrtTensorDelete, and also when creation fails, so
 * ownership passes to smrt either way. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtTensorCreateView(SmrtDataType type, const int64_t* dims,
                                                  int rank, void* data, size_t byte_size,
                                                  SmrtDeallocator deallocator,
                                                  void* deallocator_arg, SmrtTensor** out);

SMRT_CAPI_EXPORT void SmrtTensorDelete(SmrtTensor* tensor);

SMRT_CAPI_EXPORT SmrtDataType SmrtTensorDataType(const SmrtTensor* tensor);
SMRT_CAPI_EXPORT int SmrtTensorRank(const SmrtTensor* tensor);
/* Dimension i, or -1 when i is out of range. */
SMRT_CAPI_EXPORT int64_t SmrtTensorDim(const SmrtTensor* tensor, int i);
SMRT_CAPI_EXPORT int64_t SmrtTensorElementCount(const SmrtTensor* tensor);
/* Bytes of element data; 0 for SMRT_STRING (use SmrtTensorGetString). */
SMRT_CAPI_EXPORT size_t SmrtTensorByteSize(const SmrtTensor* tensor);
/* The elements, row-major; NULL for SMRT_STRING. SmrtTensorData is for
 * tensors the caller created (outputs are read-only). */
SMRT_CAPI_EXPORT void* SmrtTensorData(SmrtTensor* tensor);
SMRT_CAPI_EXPORT const void* SmrtTensorConstData(const SmrtTensor* tensor);

/* Element `index` (row-major) of a SMRT_STRING tensor: arbitrary bytes.
 * *bytes stays valid until the tensor is deleted or the element is set.
 * INVALID_ARGUMENT for a non-string tensor; OUT_OF_RANGE for a bad index. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtTensorGetString(const SmrtTensor* tensor, int64_t index,
                                                 const char** bytes, size_t* length);
/* Copies `length` bytes into element `index`. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtTensorSetString(SmrtTensor* tensor, int64_t index,
                                                 const char* bytes, size_t length);

/* ---------------------------------------------------------- LoadOptions */

typedef struct SmrtLoadOptions SmrtLoadOptions;

/* Defaults: tags {"serve"}, every signature prepared. */
SMRT_CAPI_EXPORT SmrtLoadOptions* SmrtLoadOptionsCreate(void);
SMRT_CAPI_EXPORT void SmrtLoadOptionsDelete(SmrtLoadOptions* options);

/* Sets an option from text, e.g. ("tags", "serve,gpu"),
 * ("signatures", "serving_default"). Lists are comma-separated. The keys
 * are those of smrt::LoadOptionKeys() (docs/options.md); INVALID_ARGUMENT
 * for an unknown key, with a message listing the known keys, or for a value
 * that does not parse. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtLoadOptionsSet(SmrtLoadOptions* options, const char* key,
                                                const char* value);
/* The tag set selecting the MetaGraphDef; replaces the default. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtLoadOptionsSetTags(SmrtLoadOptions* options,
                                                    const char* const* tags, int count);
/* The signatures to prepare (count 0: all). A signature whose ops smrt
 * cannot run fails the load, so name only the ones you call. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtLoadOptionsSetSignatures(SmrtLoadOptions* options,
                                                          const char* const* keys, int count);

/* ------------------------------------------------------------ ModelFiles */

/* A SavedModel's files in memory, for SmrtModelLoadFromMemory. */
typedef struct SmrtModelFiles SmrtModelFiles;

SMRT_CAPI_EXPORT SmrtModelFiles* SmrtModelFilesCreate(void);
SMRT_CAPI_EXPORT void SmrtModelFilesDelete(SmrtModelFiles* files);
/* Copies `size` bytes as the file at `path`, relative to the SavedModel
 * directory: "saved_model.pb", "variables/variables.index",
 * "variables/variables.data-00000-of-00001", "assets/vocab.txt"... A second
 * call with the same path replaces the bytes. INVALID_ARGUMENT for an empty,
 * absolute or ".." path. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelFilesAdd(SmrtModelFiles* files, const char* path,
                                               const void* data, size_t size);

/* ---------------------------------------------------------------- Model */

typedef struct SmrtModel SmrtModel;
typedef struct SmrtSignature SmrtSignature;
typedef struct SmrtTensorSpec SmrtTensorSpec;

/* Reads the SavedModel directory, restores its variables, runs its init op
 * and prepares the requested signatures. options may be NULL. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelLoad(const char* dir, const SmrtLoadOptions* options,
                                           SmrtModel** out);
/* The same from files in memory; the model keeps its own copy, so `files`
 * may be deleted right after. Errors name the files as "mem://<n>/...". */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelLoadFromMemory(const SmrtModelFiles* files,
                                                     const SmrtLoadOptions* options,
                                                     SmrtModel** out);
SMRT_CAPI_EXPORT void SmrtModelDelete(SmrtModel* model);

/* Prepared signatures, sorted by key (the init op is never listed). */
SMRT_CAPI_EXPORT int SmrtModelSignatureCount(const SmrtModel* model);
/* NULL when i is out of range. */
SMRT_CAPI_EXPORT const char* SmrtModelSignatureKey(const SmrtModel* model, int i);
/* NOT_FOUND listing the available keys. *out is borrowed from the model. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelGetSignature(const SmrtModel* model, const char* key,
                                                   const SmrtSignature** out);

SMRT_CAPI_EXPORT const char* SmrtSignatureKey(const SmrtSignature* signature);
/* "tensorflow/serving/predict"... */
SMRT_CAPI_EXPORT const char* SmrtSignatureMethodName(const SmrtSignature* signature);
/* Inputs and outputs, each sorted by name; the accessors return NULL when i
 * is out of range. */
SMRT_CAPI_EXPORT int SmrtSignatureInputCount(const SmrtSignature* signature);
SMRT_CAPI_EXPORT const SmrtTensorSpec* SmrtSignatureInput(const SmrtSignature* signature, int i);
SMRT_CAPI_EXPORT int SmrtSignatureOutputCount(const SmrtSignature* signature);
SMRT_CAPI_EXPORT const SmrtTensorSpec* SmrtSignatureOutput(const SmrtSignature* signature,
                                                           int i);

/* The key callers use ("x"). */
SMRT_CAPI_EXPORT const char* SmrtTensorSpecName(const SmrtTensorSpec* spec);
/* The graph tensor ("x:0"). */
SMRT_CAPI_EXPORT const char* SmrtTensorSpecTensorName(const SmrtTensorSpec* spec);
SMRT_CAPI_EXPORT SmrtDataType SmrtTensorSpecDataType(const SmrtTensorSpec* spec);
/* -1 when the rank is unknown. */
SMRT_CAPI_EXPORT int SmrtTensorSpecRank(const SmrtTensorSpec* spec);
/* -1 for an unknown dim (or i out of range). */
SMRT_CAPI_EXPORT int64_t SmrtTensorSpecDim(const SmrtTensorSpec* spec, int i);

/* ------------------------------------------------------------- Quantize */

/* How SmrtQuantize works (smrt/quantize.h, docs/precision.md). */
typedef struct SmrtQuantizeOptions SmrtQuantizeOptions;

SMRT_CAPI_EXPORT SmrtQuantizeOptions* SmrtQuantizeOptionsCreate(void);
SMRT_CAPI_EXPORT void SmrtQuantizeOptionsDelete(SmrtQuantizeOptions* options);
/* Keys: "signature" (default serving_default or the only one), "keep_float"
 * (comma-separated node names, as `smrt show --fusions` prints them, kept
 * float32), "percentile" (in (50, 100]; default 100: min and max),
 * "from_fake_quant" ("true": a quantization-aware-training export's own
 * ranges, no calibration calls), and every load option key
 * (SmrtLoadOptionsSet: how the model is loaded, e.g. "tags").
 * INVALID_ARGUMENT for an unknown key or a value that does not parse. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtQuantizeOptionsSet(SmrtQuantizeOptions* options,
                                                    const char* key, const char* value);

/* int8 post-training quantization: runs the float32 model on `num_calls`
 * calibration calls, records the input and output range of every fused
 * convolution and matmul, and writes them to the quantization file
 * `out_path` (keep it beside the SavedModel); load it with the load option
 * ("quantization", out_path). Call i gives inputs[i * num_inputs + j] as the
 * input named input_names[j]. options may be NULL; num_calls may be 0 with
 * from_fake_quant. *nodes_recorded (when not NULL) is set to the number of
 * nodes the file gives a range. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtQuantize(const char* dir, const char* const* input_names,
                                          int num_inputs, const SmrtTensor* const* inputs,
                                          int num_calls, const char* out_path,
                                          const SmrtQuantizeOptions* options,
                                          int* nodes_recorded);

/* ------------------------------------------------------------------ Run */

/* The outputs of one call, by name. */
typedef struct SmrtOutputs SmrtOutputs;

/* Calls a signature with inputs[i] named input_names[i]. Every input must be
 * given, with the declared dtype and a shape that fits; errors say which
 * input is unknown, missing, or of the wrong dtype/rank/dim (expected vs
 * given). Inputs are only read and may be deleted after the call. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelRun(const SmrtModel* model, const char* signature_key,
                                          const char* const* input_names,
                                          const SmrtTensor* const* inputs, int num_inputs,
                                          SmrtOutputs** out);

/* Stops runs from another thread: pass it in SmrtRunOptions and call
 * SmrtCancellationCancel (thread-safe); each such run then fails with
 * SMRT_CANCELLED at its next check (before an op or a loop iteration; an op
 * that has started runs to its end). Delete it after the runs returned. */
typedef struct SmrtCancellation SmrtCancellation;
SMRT_CAPI_EXPORT SmrtCancellation* SmrtCancellationCreate(void);
SMRT_CAPI_EXPORT void SmrtCancellationCancel(SmrtCancellation* cancellation);
SMRT_CAPI_EXPORT void SmrtCancellationDelete(SmrtCancellation* cancellation);

/* Set struct_size = sizeof(SmrtRunOptions); later versions only append
 * fields and read no more than struct_size bytes. */
typedef struct SmrtRunOptions {
  size_t struct_size;
  /* > 0: the run fails with SMRT_DEADLINE_EXCEEDED once this many seconds
   * have passed since the call (checked as for cancellation); 0: none. */
  double timeout_seconds;
  const SmrtCancellation* cancellation; /* NULL: none */
} SmrtRunOptions;

/* SmrtModelRun with options; options may be NULL. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelRunWithOptions(const SmrtModel* model,
                                                     const char* signature_key,
                                                     const char* const* input_names,
                                                     const SmrtTensor* const* inputs,
                                                     int num_inputs,
                                                     const SmrtRunOptions* options,
                                                     SmrtOutputs** out);

/* Outputs sorted by name; the accessors return NULL when i is out of range.
 * Output tensors are borrowed from the SmrtOutputs. */
SMRT_CAPI_EXPORT int SmrtOutputsCount(const SmrtOutputs* outputs);
SMRT_CAPI_EXPORT const char* SmrtOutputsName(const SmrtOutputs* outputs, int i);
SMRT_CAPI_EXPORT const SmrtTensor* SmrtOutputsTensor(const SmrtOutputs* outputs, int i);
/* NOT_FOUND listing the output names. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtOutputsFind(const SmrtOutputs* outputs, const char* name,
                                             const SmrtTensor** out);
SMRT_CAPI_EXPORT void SmrtOutputsDelete(SmrtOutputs* outputs);

/* --------------------------------------------------------------- Memory */

/* What a model's tensors hold (see smrt::MemoryStats in smrt/model.h):
 * weights, constants, intermediates of runs in flight and outputs not yet
 * deleted. Set struct_size = sizeof(SmrtMemoryStats) before the call; later
 * versions only append fields and fill no more than struct_size bytes. */
typedef struct SmrtMemoryStats {
  size_t struct_size;
  uint64_t bytes_in_use;
  uint64_t peak_bytes_in_use; /* since load or SmrtModelResetPeakMemory */
  uint64_t limit_bytes;       /* the memory_limit_bytes option; 0: none */
  uint64_t allocation_count;  /* tensors allocated since load */
} SmrtMemoryStats;

/* INVALID_ARGUMENT when model or stats is NULL or struct_size is too small
 * for the first field. Safe while other threads run the model. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtModelGetMemoryStats(const SmrtModel* model,
                                                     SmrtMemoryStats* stats);
/* Sets the peak to what is in use now. */
SMRT_CAPI_EXPORT void SmrtModelResetPeakMemory(SmrtModel* model);

/* -------------------------------------------------------------- Logging */

/* smrt's messages (smrt/log.h): a device fallback, a tuning cache ignored or
 * not written, what log_placement asks for. Failures of a call are its
 * status, never only a message. By default each message is one line on
 * stderr, "smrt: <message>", and those below SMRT_LOG_WARNING are dropped.
 *
 *   static void to_syslog(int level, const char* message, void* user_data) {
 *     syslog(level >= SMRT_LOG_ERROR ? LOG_ERR : LOG_WARNING, "%s", message);
 *   }
 *   SmrtSetLogCallback(to_syslog, NULL);
 *   SmrtSetLogLevel(SMRT_LOG_ERROR);  // or SMRT_LOG_LEVEL=error
 */
typedef enum SmrtLogLevel {
  SMRT_LOG_DEBUG = 0,
  SMRT_LOG_INFO = 1,
  SMRT_LOG_WARNING = 2, /* the default minimum */
  SMRT_LOG_ERROR = 3
} SmrtLogLevel;

/* Called with an SmrtLogLevel, one line of text (no "smrt: " prefix, no
 * newline; valid only during the call) and the user_data it was set with. */
typedef void (*SmrtLogCallback)(int level, const char* message, void* user_data);

/* Sends every message that passes the level to `callback`; NULL restores
 * stderr. The callback may be called from any thread, from several at once,
 * so it must be thread-safe; it must not load or run models. When this
 * returns, the previous callback is no longer running on any other thread and
 * is not called again, so its user_data may be freed. Safe to call while
 * other threads log. */
SMRT_CAPI_EXPORT void SmrtSetLogCallback(SmrtLogCallback callback, void* user_data);

/* Drops messages below `level` (an SmrtLogLevel; values outside the range are
 * clamped to it). Until this is called, the environment variable
 * SMRT_LOG_LEVEL (DEBUG, INFO, WARNING, ERROR or 0 to 3) sets it, else
 * SMRT_LOG_WARNING. */
SMRT_CAPI_EXPORT void SmrtSetLogLevel(int level);
/* The level now in force. */
SMRT_CAPI_EXPORT int SmrtGetLogLevel(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SMRT_C_API_H_ */
