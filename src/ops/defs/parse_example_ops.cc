// ParseExample and ParseExampleV2: serialized tf.Example protos to sparse
// (indices, values, shapes), dense and (V2) ragged (values, row splits)
// tensors, their count and dtypes set by the attrs (ops/parse_example_attrs.h).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/parse_example_attrs.h"

namespace smrt::ops {
namespace {

using parse_example::CheckNumInputs;
using parse_example::NumParseOutputs;
using parse_example::OpName;
using parse_example::ParseAttrs;
using parse_example::ReadParseAttrs;
using parse_example::Version;

absl::Status InferParseExample(InferenceContext& ctx, Version version) {
  absl::StatusOr<ParseAttrs> a = ReadParseAttrs(ctx.attrs(), version);
  if (!a.ok()) return a.status();
  if (absl::Status s = CheckNumInputs(*a, ctx.num_inputs()); !s.ok()) return s;
  const int max_rank = version == Version::kV1 ? 1 : 0;  // serialized: V1 vector, V2 rank <= 1
  for (int i = 0; i < 2; ++i) {
    const ValueInfo& in = ctx.input(i);
    if (in.dtype != DataType::kInvalid && in.dtype != DataType::kString) {
      return absl::InvalidArgumentError(absl::StrCat(
          OpName(version), " input ", i, " must be string, got ", DataTypeName(in.dtype)));
    }
    int rank = in.shape.rank();
    if (in.shape.known_rank && (rank > 1 || rank < max_rank)) {
      return absl::InvalidArgumentError(
          absl::StrCat(OpName(version), ": ", i == 0 ? "serialized" : "names", " must be ",
                       version == Version::kV1 ? "a vector" : "a scalar or a vector",
                       ", got shape ", in.shape.ToString()));
    }
  }
  for (int d = 0; d < a->num_dense(); ++d) {
    DataType t = ctx.input(a->first_default_input() + d).dtype;
    if (t != DataType::kInvalid && t != a->dense_types[d]) {
      return absl::InvalidArgumentError(absl::StrCat("dense_defaults[", d, "] is ", DataTypeName(t),
                                                     " but Tdense[", d, "] is ",
                                                     DataTypeName(a->dense_types[d])));
    }
  }

  // The batch prefix of every output: V1 is always (batch,).
  PartialShape prefix = ctx.input(0).shape;
  if (version == Version::kV1)
    prefix = PartialShape::Known({prefix.known_rank ? prefix.dims[0] : -1});
  const int64_t sparse_rank = prefix.known_rank ? prefix.rank() + 1 : -1;

  int out = 0;
  for (int i = 0; i < a->num_sparse(); ++i) {
    ctx.set_output(out++, {DataType::kInt64, PartialShape::Known({-1, sparse_rank})});
  }
  for (int i = 0; i < a->num_sparse(); ++i) {
    ctx.set_output(out++, {a->sparse_types[i], PartialShape::Known({-1})});
  }
  for (int i = 0; i < a->num_sparse(); ++i) {
    ctx.set_output(out++, {DataType::kInt64, PartialShape::Known({sparse_rank})});
  }
  for (int d = 0; d < a->num_dense(); ++d) {
    PartialShape shape = PartialShape::Unknown();
    if (prefix.known_rank) {
      shape = prefix;
      shape.dims.insert(shape.dims.end(), a->dense_shapes[d].dims.begin(),
                        a->dense_shapes[d].dims.end());
    }
    ctx.set_output(out++, {a->dense_types[d], shape});
  }
  int64_t num_splits = -1;
  if (prefix.known_rank && prefix.rank() == 1 && prefix.dims[0] >= 0)
    num_splits = prefix.dims[0] + 1;
  for (int i = 0; i < a->num_ragged(); ++i) {
    ctx.set_output(out++, {a->ragged_value_types[i], PartialShape::Known({-1})});
  }
  for (int i = 0; i < a->num_ragged(); ++i) {
    ctx.set_output(out++, {a->ragged_split_types[i], PartialShape::Known({num_splits})});
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterParseExampleOps(OpRegistry& r) {
  for (Version v : {Version::kV1, Version::kV2}) {
    const std::string op(OpName(v));
    // TensorFlow gives none of these ops' attrs a default.
    r.AddOp({op,
             {},
             [v](InferenceContext& ctx) { return InferParseExample(ctx, v); },
             [v](const AttrMap& attrs, int) { return NumParseOutputs(attrs, v); },
             /*stateful=*/false});
  }
}

}  // namespace smrt::ops
