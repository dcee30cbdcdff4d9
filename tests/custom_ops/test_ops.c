/* A custom op library for smrt's tests, in C11 against smrt/custom_op.h
 * alone (the example, examples/custom_op, uses the C++ layer):
 *
 *   Addons>Gelu      TensorFlow Addons' GELU on float32 (exact or tanh form
 *                    by attr `approximate`); fails on a NaN input, so that
 *                    tests see a compute error named after its node.
 *   SmrtTestAttrs    reads every kind of attr and writes what it read into a
 *                    float32 output, so that tests check the attr readers;
 *                    its shape function refuses an input of unknown rank.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "smrt/custom_op.h"

static const SmrtCustomOpApi* g_api;

static SmrtStatus* Fail(SmrtCode code, const char* message) {
  return g_api->CreateStatus(code, message);
}

/* ---------------------------------------------------------------- Gelu */

static SmrtStatus* GeluShape(SmrtShapeContext* ctx, void* user_data) {
  (void)user_data;
  const int rank = g_api->ShapeInputRank(ctx, 0);
  int64_t dims[8];
  if (rank > 8) return Fail(SMRT_INVALID_ARGUMENT, "rank over 8");
  for (int d = 0; d < rank; ++d) dims[d] = g_api->ShapeInputDim(ctx, 0, d);
  return g_api->ShapeSetOutput(ctx, 0, g_api->ShapeInputType(ctx, 0), dims, rank);
}

static SmrtStatus* GeluCompute(SmrtKernelContext* ctx, void* user_data) {
  (void)user_data;
  int approximate = 1; /* Addons' default */
  SmrtStatus* s = g_api->AttrGetBool(g_api->KernelContextAttrs(ctx), "approximate", &approximate);
  if (s != NULL && g_api->StatusCode(s) != SMRT_NOT_FOUND) return s;
  g_api->DeleteStatus(s);
  SmrtKernelTensor x;
  if ((s = g_api->KernelGetInput(ctx, 0, &x)) != NULL) return s;
  float* y = NULL;
  if ((s = g_api->KernelAllocateOutput(ctx, 0, SMRT_FLOAT, x.dims, x.rank, (void**)&y)) != NULL) {
    return s;
  }
  const float* in = (const float*)x.data;
  for (int64_t i = 0; i < x.element_count; ++i) {
    const double v = in[i];
    if (isnan(v)) {
      char message[96];
      snprintf(message, sizeof message, "Gelu of NaN at element %lld", (long long)i);
      return Fail(SMRT_INVALID_ARGUMENT, message);
    }
    y[i] = (float)(approximate
                       ? 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
                       : 0.5 * v * (1.0 + erf(v * 0.7071067811865476)));
  }
  return NULL;
}

/* --------------------------------------------------------- SmrtTestAttrs */

/* Output 0, float32 [16]: i, f, b, len(s), s[0], t, len(ints), ints[0], ints[1],
 * len(floats), floats[0], len(types), types[0], len(strings), len(strings[1]),
 * 1 when `missing` was NOT_FOUND. */
static SmrtStatus* AttrsShape(SmrtShapeContext* ctx, void* user_data) {
  (void)user_data;
  if (g_api->ShapeInputRank(ctx, 0) < 0) {
    return Fail(SMRT_INVALID_ARGUMENT, "SmrtTestAttrs needs an input of known rank");
  }
  const int64_t dims[1] = {16};
  return g_api->ShapeSetOutput(ctx, 0, SMRT_FLOAT, dims, 1);
}

#define CHECK_STATUS(expr)               \
  do {                                   \
    SmrtStatus* status_ = (expr);        \
    if (status_ != NULL) return status_; \
  } while (0)

static SmrtStatus* AttrsCompute(SmrtKernelContext* ctx, void* user_data) {
  (void)user_data;
  const SmrtAttrs* a = g_api->KernelContextAttrs(ctx);
  int64_t i = 0;
  float f = 0;
  int b = 0;
  const char* str = NULL;
  size_t len = 0;
  SmrtDataType t = SMRT_INVALID;
  CHECK_STATUS(g_api->AttrGetInt(a, "i", &i));
  CHECK_STATUS(g_api->AttrGetFloat(a, "f", &f));
  CHECK_STATUS(g_api->AttrGetBool(a, "b", &b));
  CHECK_STATUS(g_api->AttrGetString(a, "s", &str, &len));
  CHECK_STATUS(g_api->AttrGetType(a, "t", &t));
  size_t n_ints = 0, n_floats = 0, n_types = 0, n_strings = 0;
  int64_t ints[2] = {0, 0};
  float floats[1] = {0};
  SmrtDataType types[1] = {SMRT_INVALID};
  CHECK_STATUS(g_api->AttrListSize(a, "ints", &n_ints));
  CHECK_STATUS(g_api->AttrGetIntList(a, "ints", ints, 2));
  CHECK_STATUS(g_api->AttrListSize(a, "floats", &n_floats));
  CHECK_STATUS(g_api->AttrGetFloatList(a, "floats", floats, 1));
  CHECK_STATUS(g_api->AttrListSize(a, "types", &n_types));
  CHECK_STATUS(g_api->AttrGetTypeList(a, "types", types, 1));
  CHECK_STATUS(g_api->AttrListSize(a, "strings", &n_strings));
  const char* item = NULL;
  size_t item_len = 0;
  CHECK_STATUS(g_api->AttrGetStringListItem(a, "strings", 1, &item, &item_len));
  SmrtStatus* missing = g_api->AttrGetInt(a, "missing", &i);
  const int not_found = g_api->StatusCode(missing) == SMRT_NOT_FOUND;
  g_api->DeleteStatus(missing);
  /* A wrong kind is an error the op can pass on. */
  float wrong = 0;
  SmrtStatus* s = g_api->AttrGetFloat(a, "i", &wrong);
  if (s == NULL) return Fail(SMRT_INTERNAL, "reading int attr 'i' as a float succeeded");
  g_api->DeleteStatus(s);

  const int64_t dims[1] = {16};
  float* out = NULL;
  CHECK_STATUS(g_api->KernelAllocateOutput(ctx, 0, SMRT_FLOAT, dims, 1, (void**)&out));
  const float values[16] = {(float)i,
                            f,
                            (float)b,
                            (float)len,
                            len > 0 ? (float)str[0] : -1.f,
                            (float)t,
                            (float)n_ints,
                            (float)ints[0],
                            (float)ints[1],
                            (float)n_floats,
                            floats[0],
                            (float)n_types,
                            (float)types[0],
                            (float)n_strings,
                            (float)item_len,
                            (float)not_found};
  memcpy(out, values, sizeof values);
  return NULL;
}

SMRT_CUSTOM_OP_EXPORT SmrtStatus* SmrtRegisterCustomOps(SmrtCustomOpRegistry* registry,
                                                        const SmrtCustomOpApi* api) {
  g_api = api;
  static const SmrtDataType kFloat[] = {SMRT_FLOAT};
  static const SmrtCustomOpArg kGeluIn[] = {{"features", kFloat, 1}};
  static const SmrtCustomOpArg kGeluOut[] = {{"activations", kFloat, 1}};
  static const SmrtCustomOpAttr kGeluAttrs[] = {{"approximate", SMRT_ATTR_BOOL, 0}};
  SmrtCustomOp gelu;
  memset(&gelu, 0, sizeof gelu);
  gelu.struct_size = sizeof gelu;
  gelu.name = "Addons>Gelu";
  gelu.num_inputs = 1;
  gelu.inputs = kGeluIn;
  gelu.num_outputs = 1;
  gelu.outputs = kGeluOut;
  gelu.num_attrs = 1;
  gelu.attrs = kGeluAttrs;
  gelu.shape_fn = GeluShape;
  gelu.compute_fn = GeluCompute;
  SmrtStatus* s = api->RegisterOp(registry, &gelu);
  if (s != NULL) return s;

  static const SmrtCustomOpArg kAttrsIn[] = {{"x", NULL, 0}};
  static const SmrtCustomOpArg kAttrsOut[] = {{"y", kFloat, 1}};
  static const SmrtCustomOpAttr kAttrs[] = {{"i", SMRT_ATTR_INT, 1},
                                            {"f", SMRT_ATTR_FLOAT, 1},
                                            {"b", SMRT_ATTR_BOOL, 1},
                                            {"s", SMRT_ATTR_STRING, 1},
                                            {"t", SMRT_ATTR_TYPE, 1},
                                            {"ints", SMRT_ATTR_INT_LIST, 1},
                                            {"floats", SMRT_ATTR_FLOAT_LIST, 0},
                                            {"types", SMRT_ATTR_TYPE_LIST, 0},
                                            {"strings", SMRT_ATTR_STRING_LIST, 0}};
  SmrtCustomOp attrs;
  memset(&attrs, 0, sizeof attrs);
  attrs.struct_size = sizeof attrs;
  attrs.name = "SmrtTestAttrs";
  attrs.num_inputs = 1;
  attrs.inputs = kAttrsIn;
  attrs.num_outputs = 1;
  attrs.outputs = kAttrsOut;
  attrs.num_attrs = (int)(sizeof kAttrs / sizeof kAttrs[0]);
  attrs.attrs = kAttrs;
  attrs.shape_fn = AttrsShape;
  attrs.compute_fn = AttrsCompute;
  return api->RegisterOp(registry, &attrs);
}
