/* Custom ops: kernels of your own for op types smrt does not have (TensorFlow
 * Addons' "Addons>Gelu", an op of your company's TensorFlow build), in C, as
 * ONNX Runtime's custom op libraries and TensorFlow's tf.load_op_library.
 *
 * A custom op library is a shared library that exports one function:
 *
 *   #include "smrt/custom_op.h"
 *
 *   static SmrtStatus* Relu6Shape(SmrtShapeContext* ctx, void* user_data);
 *   static SmrtStatus* Relu6Compute(SmrtKernelContext* ctx, void* user_data);
 *
 *   SMRT_CUSTOM_OP_EXPORT SmrtStatus* SmrtRegisterCustomOps(SmrtCustomOpRegistry* registry,
 *                                                          const SmrtCustomOpApi* api) {
 *     static const SmrtDataType kFloat[] = {SMRT_FLOAT};
 *     static const SmrtCustomOpArg kIn[] = {{"features", kFloat, 1}};
 *     static const SmrtCustomOpArg kOut[] = {{"activations", kFloat, 1}};
 *     SmrtCustomOp op = {0};
 *     op.struct_size = sizeof(op);
 *     op.name = "MyRelu6";
 *     op.num_inputs = 1;  op.inputs = kIn;
 *     op.num_outputs = 1; op.outputs = kOut;
 *     op.shape_fn = Relu6Shape;
 *     op.compute_fn = Relu6Compute;
 *     return api->RegisterOp(registry, &op);
 *   }
 *
 * and the application names it when loading a model that uses the op:
 * the load option "custom_op_libraries" (LoadOptions::custom_op_libraries,
 * SmrtLoadOptionsSet(opts, "custom_op_libraries", "/path/libmy_ops.so"),
 * smrt.load(dir, custom_op_libraries=[...]), `smrt run --custom_op_library`).
 * A program can also register ops it contains itself, with no library:
 * SmrtLoadOptionsAddCustomOps(opts, MyRegisterFunction). smrt/custom_op_cxx.h
 * is a header-only C++ layer over this file.
 *
 * The library needs no link to libsmrt: it reaches smrt only through the
 * SmrtCustomOpApi table it is given (so one library serves the C API, the
 * C++ API, the Python module and the CLI, whichever copy of smrt loaded it).
 * It includes this header and c_api.h for the types only.
 *
 * What smrt does with a custom op: each node of that type in a signature
 * (or a function the signature calls) runs the op's compute_fn on the CPU.
 * Before that, at load, smrt checks each node: its input count, its input
 * dtypes against the op's constraints and its declared attrs, then calls
 * shape_fn, which says each output's dtype and shape (dims that cannot be
 * known before running are -1); its answers feed smrt's shape inference
 * and memory planning. The custom ops of a load are the model's own: another
 * model, loaded without the library, does not see them (docs/custom_ops.md).
 *
 * Lifetime:
 *   - Every pointer smrt passes to shape_fn and compute_fn (contexts, attrs,
 *     names, input data, output buffers) is valid during that call only.
 *   - The SmrtCustomOp given to RegisterOp, and the arrays and strings it
 *     points to, are copied: they may be freed when RegisterOp returns.
 *   - user_data lives until the model whose load registered the op is
 *     deleted (or that load fails): then destroy_user_data (when not NULL)
 *     is called once, after the last shape_fn or compute_fn call has
 *     returned. Registering several ops with one user_data calls
 *     destroy_user_data once per op.
 *   - A library stays loaded until the process ends (as TensorFlow's
 *     load_op_library): a model deleted does not unload it, and loading it
 *     again (for another model, or twice in one load) reuses it.
 *
 * Threads: compute_fn may be called from several threads at once, for
 * different nodes of one run (LoadOptions::inter_op_threads), and for the
 * same node in concurrent runs of the model (any number of threads may call
 * Run). It must be reentrant: keep per-call state on the stack, and guard
 * anything mutable that user_data holds. shape_fn is called while a model
 * loads (and when a run plans new input shapes), possibly from several
 * threads too. Neither may load or run a model, nor call smrt's logging
 * setters.
 *
 * Errors: shape_fn and compute_fn return NULL on success, or a status made
 * with api->CreateStatus(code, message), which smrt takes ownership of and
 * turns into the load's or the run's error, naming the node and op:
 * "node 'gelu' (Addons>Gelu): <message>". No C++ exception may leave them
 * (the C++ layer catches them).
 */
#ifndef SMRT_CUSTOM_OP_H_
#define SMRT_CUSTOM_OP_H_

#include <stddef.h>
#include <stdint.h>

#include "smrt/c_api.h"

#if defined(__GNUC__)
#define SMRT_CUSTOM_OP_EXPORT __attribute__((visibility("default")))
#else
#define SMRT_CUSTOM_OP_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of SmrtCustomOpApi this header describes. Later versions only
 * append functions to the table; a library built against version N runs on
 * an smrt whose api->version is N or more. */
#define SMRT_CUSTOM_OP_API_VERSION 1

/* The entry point's name, which smrt looks up in each library. */
#define SMRT_CUSTOM_OP_ENTRY_POINT "SmrtRegisterCustomOps"

typedef struct SmrtCustomOpRegistry SmrtCustomOpRegistry;
typedef struct SmrtShapeContext SmrtShapeContext;
typedef struct SmrtKernelContext SmrtKernelContext;
/* A node's attrs (TensorFlow's NodeDef.attr), read with api->AttrGet*. */
typedef struct SmrtAttrs SmrtAttrs;

/* The kinds of attrs an op reads: TensorFlow's "int", "float", "bool",
 * "string", "type" and their lists. */
typedef enum SmrtAttrType {
  SMRT_ATTR_INT = 1,
  SMRT_ATTR_FLOAT = 2,
  SMRT_ATTR_BOOL = 3,
  SMRT_ATTR_STRING = 4,
  SMRT_ATTR_TYPE = 5,
  SMRT_ATTR_INT_LIST = 6,
  SMRT_ATTR_FLOAT_LIST = 7,
  SMRT_ATTR_STRING_LIST = 8,
  SMRT_ATTR_TYPE_LIST = 9
} SmrtAttrType;

/* One input or output. `name` is TensorFlow's arg name (OpDef input_arg /
 * output_arg), which function bodies use ("gelu:activations:0"). */
typedef struct SmrtCustomOpArg {
  const char* name;
  const SmrtDataType* types; /* the dtypes allowed; NULL (num_types 0): any */
  int num_types;
} SmrtCustomOpArg;

/* An attr the op reads. A node that has it with another type fails the
 * load; a node without it fails when `required` is nonzero (else the op's
 * functions get NOT_FOUND and use their own default). */
typedef struct SmrtCustomOpAttr {
  const char* name;
  SmrtAttrType type;
  int required;
} SmrtCustomOpAttr;

/* Sets every output's dtype and shape with api->ShapeSetOutput. */
typedef SmrtStatus* (*SmrtCustomOpShapeFn)(SmrtShapeContext* context, void* user_data);
/* Reads the inputs and allocates and fills every output. */
typedef SmrtStatus* (*SmrtCustomOpComputeFn)(SmrtKernelContext* context, void* user_data);

typedef struct SmrtCustomOp {
  size_t struct_size; /* sizeof(SmrtCustomOp) */
  const char* name;   /* the op type in the graph: "Addons>Gelu", "MyRelu6" */
  int num_inputs;
  const SmrtCustomOpArg* inputs;
  int num_outputs; /* at least 1; several share one name (a list output, "y: N * T") */
  const SmrtCustomOpArg* outputs;
  int num_attrs;
  const SmrtCustomOpAttr* attrs;
  SmrtCustomOpShapeFn shape_fn;               /* required */
  SmrtCustomOpComputeFn compute_fn;           /* required */
  void* user_data;                            /* passed to both; may be NULL */
  void (*destroy_user_data)(void* user_data); /* may be NULL */
} SmrtCustomOp;

/* An input of a compute_fn call: read-only, valid during the call. */
typedef struct SmrtKernelTensor {
  SmrtDataType dtype;
  int rank;
  const int64_t* dims; /* rank entries */
  int64_t element_count;
  const void* data; /* row-major elements; NULL for SMRT_STRING */
  size_t byte_size; /* bytes of data; 0 for SMRT_STRING */
} SmrtKernelTensor;

/* What smrt offers a custom op library. Functions that can fail return a
 * status (NULL: success) that the caller owns: return it from shape_fn or
 * compute_fn, or free it with DeleteStatus. Out-parameters are set only on
 * success. */
typedef struct SmrtCustomOpApi {
  uint32_t version; /* SMRT_CUSTOM_OP_API_VERSION of the smrt that runs */

  /* Statuses. CreateStatus copies `message`; code SMRT_OK gives NULL. */
  SmrtStatus* (*CreateStatus)(SmrtCode code, const char* message);
  SmrtCode (*StatusCode)(const SmrtStatus* status);
  const char* (*StatusMessage)(const SmrtStatus* status);
  void (*DeleteStatus)(SmrtStatus* status);

  /* Adds an op to the registry a load is filling. INVALID_ARGUMENT for a
   * malformed definition (no name, no compute_fn, a negative count...);
   * ALREADY_EXISTS when smrt has an op of that name, or this load already
   * registered one (from another library); the message names the op. On
   * failure destroy_user_data is not called: the caller keeps user_data. */
  SmrtStatus* (*RegisterOp)(SmrtCustomOpRegistry* registry, const SmrtCustomOp* op);

  /* Attrs of the node being inferred or computed. NOT_FOUND when the node
   * has no such attr; INVALID_ARGUMENT when it has another type (the
   * message names the node, the attr and both types). Strings are bytes,
   * not NUL-terminated. List getters copy at most `capacity` elements into
   * `values` (which may be NULL when capacity is 0); AttrListSize says how
   * many there are. */
  const SmrtAttrs* (*ShapeContextAttrs)(const SmrtShapeContext* context);
  const SmrtAttrs* (*KernelContextAttrs)(const SmrtKernelContext* context);
  SmrtStatus* (*AttrGetInt)(const SmrtAttrs* attrs, const char* name, int64_t* value);
  SmrtStatus* (*AttrGetFloat)(const SmrtAttrs* attrs, const char* name, float* value);
  SmrtStatus* (*AttrGetBool)(const SmrtAttrs* attrs, const char* name, int* value);
  SmrtStatus* (*AttrGetString)(const SmrtAttrs* attrs, const char* name, const char** bytes,
                               size_t* length);
  SmrtStatus* (*AttrGetType)(const SmrtAttrs* attrs, const char* name, SmrtDataType* value);
  SmrtStatus* (*AttrListSize)(const SmrtAttrs* attrs, const char* name, size_t* size);
  SmrtStatus* (*AttrGetIntList)(const SmrtAttrs* attrs, const char* name, int64_t* values,
                                size_t capacity);
  SmrtStatus* (*AttrGetFloatList)(const SmrtAttrs* attrs, const char* name, float* values,
                                  size_t capacity);
  SmrtStatus* (*AttrGetTypeList)(const SmrtAttrs* attrs, const char* name, SmrtDataType* values,
                                 size_t capacity);
  SmrtStatus* (*AttrGetStringListItem)(const SmrtAttrs* attrs, const char* name, size_t index,
                                       const char** bytes, size_t* length);

  /* shape_fn's view of a node: its name, its inputs' dtypes and shapes as
   * far as known before running (rank -1: unknown rank; a dim -1: unknown),
   * and the outputs it sets. ShapeSetOutput takes rank -1 for an unknown
   * rank (dims may then be NULL); INVALID_ARGUMENT for an output index out
   * of range, a dim below -1 or a dtype the op's constraints refuse. An
   * output left unset fails the load. */
  const char* (*ShapeContextNodeName)(const SmrtShapeContext* context);
  int (*ShapeInputCount)(const SmrtShapeContext* context);
  SmrtDataType (*ShapeInputType)(const SmrtShapeContext* context, int index);
  int (*ShapeInputRank)(const SmrtShapeContext* context, int index);
  int64_t (*ShapeInputDim)(const SmrtShapeContext* context, int index, int dim);
  SmrtStatus* (*ShapeSetOutput)(SmrtShapeContext* context, int index, SmrtDataType dtype,
                                const int64_t* dims, int rank);

  /* compute_fn's view of a node. KernelAllocateOutput gives output `index`
   * zero-filled storage of that dtype and shape (*data: NULL for zero
   * elements); INVALID_ARGUMENT for an index out of range, a negative dim,
   * SMRT_STRING (custom ops make fixed-size outputs) or a dtype the op's
   * constraints refuse; RESOURCE_EXHAUSTED over the model's memory limits.
   * Every output must be allocated before compute_fn returns success. */
  const char* (*KernelContextNodeName)(const SmrtKernelContext* context);
  int (*KernelInputCount)(const SmrtKernelContext* context);
  SmrtStatus* (*KernelGetInput)(const SmrtKernelContext* context, int index,
                                SmrtKernelTensor* tensor);
  SmrtStatus* (*KernelAllocateOutput)(SmrtKernelContext* context, int index, SmrtDataType dtype,
                                      const int64_t* dims, int rank, void** data);
} SmrtCustomOpApi;

/* The entry point a library exports (SMRT_CUSTOM_OP_ENTRY_POINT), and the
 * type of the functions SmrtLoadOptionsAddCustomOps takes: registers ops
 * with api->RegisterOp; returns NULL, or a status (made with
 * api->CreateStatus, or one RegisterOp returned) that fails the load. */
typedef SmrtStatus* (*SmrtRegisterCustomOpsFn)(SmrtCustomOpRegistry* registry,
                                               const SmrtCustomOpApi* api);

/* The table smrt passes to the entry points, for programs that call their
 * own register functions' helpers outside a load (tests). */
SMRT_CAPI_EXPORT const SmrtCustomOpApi* SmrtGetCustomOpApi(void);

/* Registers, for loads with these options, the ops `register_fn` adds (a
 * function of the program itself: no library). Called once per load, after
 * the libraries of "custom_op_libraries". INVALID_ARGUMENT for NULL. */
SMRT_CAPI_EXPORT SmrtStatus* SmrtLoadOptionsAddCustomOps(SmrtLoadOptions* options,
                                                         SmrtRegisterCustomOpsFn register_fn);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SMRT_CUSTOM_OP_H_ */
