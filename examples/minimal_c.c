/* The same as minimal.cc, through the C API (smrt/c_api.h): load a
 * SavedModel, print its signatures, call serving_default, print its outputs.
 *
 *   minimal_c MODEL_DIR
 */
#include <stdio.h>

#include "smrt/c_api.h"

/* Prints and frees a failed status; returns 1 when there was one. */
static int failed(SmrtStatus* s) {
  if (s == NULL) return 0;
  fprintf(stderr, "%s: %s\n", SmrtCodeName(SmrtStatusCode(s)), SmrtStatusMessage(s));
  SmrtStatusDelete(s);
  return 1;
}

static void print_spec(const char* kind, const SmrtTensorSpec* spec) {
  printf("  %s %s: %s (", kind, SmrtTensorSpecName(spec),
         SmrtDataTypeName(SmrtTensorSpecDataType(spec)));
  for (int d = 0; d < SmrtTensorSpecRank(spec); ++d) {
    printf(d == 0 ? "%lld" : ", %lld", (long long)SmrtTensorSpecDim(spec, d));
  }
  printf(")\n");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL_DIR\n", argv[0]);
    return 2;
  }
  SmrtModel* model = NULL;
  if (failed(SmrtModelLoad(argv[1], NULL, &model))) return 1;

  for (int s = 0; s < SmrtModelSignatureCount(model); ++s) {
    const SmrtSignature* sig = NULL;
    if (failed(SmrtModelGetSignature(model, SmrtModelSignatureKey(model, s), &sig))) break;
    printf("signature '%s' (%s)\n", SmrtSignatureKey(sig), SmrtSignatureMethodName(sig));
    for (int i = 0; i < SmrtSignatureInputCount(sig); ++i) print_spec("input ", SmrtSignatureInput(sig, i));
    for (int i = 0; i < SmrtSignatureOutputCount(sig); ++i) print_spec("output", SmrtSignatureOutput(sig, i));
  }

  int rc = 1;
  const SmrtSignature* sig = NULL;
  enum { kMaxInputs = 16 };
  const char* names[kMaxInputs];
  SmrtTensor* inputs[kMaxInputs];
  int n = 0;
  SmrtOutputs* outputs = NULL;
  if (failed(SmrtModelGetSignature(model, "serving_default", &sig))) goto done;
  for (; n < SmrtSignatureInputCount(sig) && n < kMaxInputs; ++n) {
    const SmrtTensorSpec* spec = SmrtSignatureInput(sig, n);
    if (SmrtTensorSpecDataType(spec) != SMRT_FLOAT) {
      fprintf(stderr, "input '%s' is not float32; this example fills only float32 inputs\n",
              SmrtTensorSpecName(spec));
      goto done;
    }
    int64_t dims[8];
    int rank = SmrtTensorSpecRank(spec) < 0 ? 0 : SmrtTensorSpecRank(spec);
    for (int d = 0; d < rank && d < 8; ++d) {
      dims[d] = SmrtTensorSpecDim(spec, d) < 0 ? 1 : SmrtTensorSpecDim(spec, d);
    }
    names[n] = SmrtTensorSpecName(spec);
    if (failed(SmrtTensorCreate(SMRT_FLOAT, dims, rank, &inputs[n]))) goto done;
    float* x = SmrtTensorData(inputs[n]);
    for (int64_t i = 0; i < SmrtTensorElementCount(inputs[n]); ++i) {
      x[i] = (float)(((i * 7919) % 1009) / 1008.0);
    }
  }
  if (failed(SmrtModelRun(model, "serving_default", names, (const SmrtTensor* const*)inputs, n,
                          &outputs))) {
    goto done;
  }
  for (int o = 0; o < SmrtOutputsCount(outputs); ++o) {
    const SmrtTensor* t = SmrtOutputsTensor(outputs, o);
    printf("serving_default: %s %s (", SmrtOutputsName(outputs, o),
           SmrtDataTypeName(SmrtTensorDataType(t)));
    for (int d = 0; d < SmrtTensorRank(t); ++d) {
      printf(d == 0 ? "%lld" : ", %lld", (long long)SmrtTensorDim(t, d));
    }
    printf("):");
    if (SmrtTensorDataType(t) == SMRT_FLOAT) {
      const float* y = SmrtTensorConstData(t);
      for (int64_t i = 0; i < SmrtTensorElementCount(t) && i < 10; ++i) printf(" %.4f", y[i]);
    }
    printf("\n");
  }
  rc = 0;
done:
  SmrtOutputsDelete(outputs);
  for (int i = 0; i < n; ++i) SmrtTensorDelete(inputs[i]);
  SmrtModelDelete(model);
  return rc;
}
