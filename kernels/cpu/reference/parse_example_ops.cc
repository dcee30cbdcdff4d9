// ParseExample and ParseExampleV2: serialized tf.Example protos to dense,
// sparse and ragged tensors, as TensorFlow's parse_example kernels produce
// them (tf.io.parse_example, the serving classify/regress input path).
//
// Inputs (V1): serialized (batch,) string, names, Nsparse sparse key scalars,
// Ndense dense key scalars, Ndense dense defaults.
// Inputs (V2): serialized () or (batch,), names, sparse_keys, dense_keys and
// ragged_keys as string vectors, then the dense defaults.
// Outputs: sparse indices, values and shapes (num_sparse each), the dense
// values, then (V2) ragged values and row splits (num_ragged each).
//
// Behaviour that follows TensorFlow's fast parser: a Feature with no list set
// counts as missing; a present list of the wrong kind is an error even when
// empty; a dense shape whose first dim is unknown is variable length (padded
// with the single-element default to the longest example); an empty default
// makes a dense feature required.
//
// Known difference: protobuf keeps the last of duplicate map entries (as
// TensorFlow does) but a key listed twice in the op's own keys is filled
// twice here, where TensorFlow fills only one of them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/registry.h"
#include "ops/parse_example_attrs.h"
#include "smrt/tfproto/example.pb.h"

namespace smrt::kernels {
namespace {

using ops::parse_example::CheckNumInputs;
using ops::parse_example::OpName;
using ops::parse_example::ParseAttrs;
using ops::parse_example::ReadParseAttrs;
using ops::parse_example::Version;

// ---------------------------------------------------------------------------
// Reading features.

// The value type a Feature holds; kInvalid when no list is set.
DataType FeatureType(const tfproto::Feature& f) {
  switch (f.kind_case()) {
    case tfproto::Feature::kBytesList:
      return DataType::kString;
    case tfproto::Feature::kFloatList:
      return DataType::kFloat;
    case tfproto::Feature::kInt64List:
      return DataType::kInt64;
    default:
      return DataType::kInvalid;
  }
}

absl::string_view ListName(DataType t) {
  switch (t) {
    case DataType::kString:
      return "bytes_list";
    case DataType::kFloat:
      return "float_list";
    default:
      return "int64_list";
  }
}

int64_t FeatureSize(const tfproto::Feature& f) {
  switch (f.kind_case()) {
    case tfproto::Feature::kBytesList:
      return f.bytes_list().value_size();
    case tfproto::Feature::kFloatList:
      return f.float_list().value_size();
    case tfproto::Feature::kInt64List:
      return f.int64_list().value_size();
    default:
      return 0;
  }
}

// Copies the feature's values to out[offset...]; the caller checked that the
// types match and that they fit.
void CopyFeature(const tfproto::Feature& f, Tensor& out, int64_t offset) {
  switch (out.dtype()) {
    case DataType::kFloat:
      std::copy(f.float_list().value().begin(), f.float_list().value().end(),
                out.data<float>() + offset);
      break;
    case DataType::kInt64:
      std::copy(f.int64_list().value().begin(), f.int64_list().value().end(),
                out.data<int64_t>() + offset);
      break;
    default:
      std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(),
                out.data<std::string>() + offset);
      break;
  }
}

// Copies n elements of `from` starting at from_offset to `to` at to_offset.
void CopyElements(const Tensor& from, int64_t from_offset, Tensor& to, int64_t to_offset,
                  int64_t n) {
  switch (to.dtype()) {
    case DataType::kFloat:
      std::copy_n(from.data<float>() + from_offset, n, to.data<float>() + to_offset);
      break;
    case DataType::kInt64:
      std::copy_n(from.data<int64_t>() + from_offset, n, to.data<int64_t>() + to_offset);
      break;
    default:
      std::copy_n(from.data<std::string>() + from_offset, n, to.data<std::string>() + to_offset);
      break;
  }
}

// The parsed batch and what error messages need to say about it.
class ExampleBatch {
 public:
  ExampleBatch(const Tensor& names, std::vector<tfproto::Example> examples)
      : names_(names), examples_(std::move(examples)) {}

  int64_t size() const { return static_cast<int64_t>(examples_.size()); }

  // The feature `key` of example i, or null when it is absent or has no list.
  // A list of another type than `dtype` is an error.
  absl::StatusOr<const tfproto::Feature*> Find(int64_t i, const std::string& key,
                                               DataType dtype) const {
    const auto& map = examples_[i].features().feature();
    auto it = map.find(key);
    if (it == map.end()) return nullptr;
    DataType held = FeatureType(it->second);
    if (held == DataType::kInvalid) return nullptr;
    if (held != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(i, key), "Data types don't match: the example holds a ", ListName(held), " (",
          DataTypeShortName(held), ") but the op expects ", DataTypeShortName(dtype)));
    }
    return &it->second;
  }

  // "Name: <unknown>, Key: x, Index: 3.  ", the prefix of TensorFlow's messages.
  std::string Where(int64_t i, absl::string_view key) const {
    return absl::StrCat("Name: ", Name(i), ", Key: ", key, ", Index: ", i, ".  ");
  }

  std::string Name(int64_t i) const {
    return names_.num_elements() > 0 ? names_.data<std::string>()[i] : "<unknown>";
  }

 private:
  const Tensor& names_;
  std::vector<tfproto::Example> examples_;
};

// ---------------------------------------------------------------------------
// Producing the outputs.

absl::Status ParseSparse(const ExampleBatch& batch, bool scalar_input, const std::string& key,
                         DataType dtype, KernelContext& ctx, int indices_out, int values_out,
                         int shape_out) {
  std::vector<const tfproto::Feature*> found(batch.size());
  int64_t total = 0, longest = 0;
  for (int64_t i = 0; i < batch.size(); ++i) {
    absl::StatusOr<const tfproto::Feature*> f = batch.Find(i, key, dtype);
    if (!f.ok()) return f.status();
    found[i] = *f;
    int64_t n = *f == nullptr ? 0 : FeatureSize(**f);
    total += n;
    longest = std::max(longest, n);
  }
  const int64_t rank = scalar_input ? 1 : 2;
  absl::StatusOr<Tensor*> indices =
      ctx.allocate_output(indices_out, DataType::kInt64, {total, rank});
  if (!indices.ok()) return indices.status();
  absl::StatusOr<Tensor*> values = ctx.allocate_output(values_out, dtype, {total});
  if (!values.ok()) return values.status();
  absl::StatusOr<Tensor*> shape = ctx.allocate_output(shape_out, DataType::kInt64, {rank});
  if (!shape.ok()) return shape.status();

  int64_t* index = (*indices)->data<int64_t>();
  int64_t offset = 0;
  for (int64_t i = 0; i < batch.size(); ++i) {
    if (found[i] == nullptr) continue;
    int64_t n = FeatureSize(*found[i]);
    CopyFeature(*found[i], **values, offset);
    for (int64_t j = 0; j < n; ++j) {
      if (!scalar_input) *index++ = i;
      *index++ = j;
    }
    offset += n;
  }
  int64_t* dims = (*shape)->data<int64_t>();
  if (!scalar_input) *dims++ = batch.size();
  *dims = longest;
  return absl::OkStatus();
}

absl::Status ParseFixedDense(const ExampleBatch& batch, const Shape& prefix, const std::string& key,
                             DataType dtype, const Shape& dense_shape, const Tensor& default_value,
                             KernelContext& ctx, int out) {
  const int64_t n = *NumElements(dense_shape);  // checked with the attrs
  Shape shape = prefix;
  shape.insert(shape.end(), dense_shape.begin(), dense_shape.end());
  absl::StatusOr<Tensor*> values = ctx.allocate_output(out, dtype, shape);
  if (!values.ok()) return values.status();
  for (int64_t i = 0; i < batch.size(); ++i) {
    absl::StatusOr<const tfproto::Feature*> f = batch.Find(i, key, dtype);
    if (!f.ok()) return f.status();
    if (*f == nullptr) {
      if (default_value.num_elements() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            batch.Where(i, key), "Feature: ", key, " (data type: ", DataTypeShortName(dtype),
            ") is required but could not be found (its dense default is empty)."));
      }
      CopyElements(default_value, 0, **values, i * n, n);
      continue;
    }
    int64_t got = FeatureSize(**f);
    if (got != n) {
      return absl::InvalidArgumentError(
          absl::StrCat(batch.Where(i, key), "Number of ", DataTypeShortName(dtype),
                       " values != expected: dense shape ", ShapeToString(dense_shape), " needs ",
                       n, " values, the example has ", got, "."));
    }
    CopyFeature(**f, **values, i * n);
  }
  return absl::OkStatus();
}

// A dense feature whose first dim is unknown: each example holds a multiple
// of the row size; rows are padded with the default to the longest example.
absl::Status ParseVarLenDense(const ExampleBatch& batch, const Shape& prefix,
                              const std::string& key, DataType dtype, const Shape& dense_shape,
                              const Tensor& default_value, KernelContext& ctx, int out) {
  const Shape row_shape(dense_shape.begin() + 1, dense_shape.end());
  const int64_t row = *NumElements(row_shape);  // checked with the attrs
  std::vector<const tfproto::Feature*> found(batch.size());
  int64_t rows = 0;
  for (int64_t i = 0; i < batch.size(); ++i) {
    absl::StatusOr<const tfproto::Feature*> f = batch.Find(i, key, dtype);
    if (!f.ok()) return f.status();
    found[i] = *f;
    if (*f == nullptr) continue;
    int64_t got = FeatureSize(**f);
    if (row == 0 ? got != 0 : got % row != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          batch.Where(i, key), "Number of ", DataTypeShortName(dtype),
          " values is not a multiple of the row size ", row, " of dense shape ",
          PartialShape::Known(dense_shape).ToString(), ": the example has ", got, "."));
    }
    if (row > 0) rows = std::max(rows, got / row);
  }
  Shape shape = prefix;
  shape.push_back(rows);
  shape.insert(shape.end(), row_shape.begin(), row_shape.end());
  absl::StatusOr<Tensor*> values = ctx.allocate_output(out, dtype, shape);
  if (!values.ok()) return values.status();
  const int64_t total = (*values)->num_elements();
  for (int64_t j = 0; j < total; ++j) CopyElements(default_value, 0, **values, j, 1);
  for (int64_t i = 0; i < batch.size(); ++i) {
    if (found[i] != nullptr) CopyFeature(*found[i], **values, i * rows * row);
  }
  return absl::OkStatus();
}

absl::Status ParseRagged(const ExampleBatch& batch, bool scalar_input, const std::string& key,
                         DataType dtype, DataType split_type, KernelContext& ctx, int values_out,
                         int splits_out) {
  std::vector<const tfproto::Feature*> found(batch.size());
  int64_t total = 0;
  for (int64_t i = 0; i < batch.size(); ++i) {
    absl::StatusOr<const tfproto::Feature*> f = batch.Find(i, key, dtype);
    if (!f.ok()) return f.status();
    found[i] = *f;
    if (*f != nullptr) total += FeatureSize(**f);
  }
  if (split_type == DataType::kInt32 && total > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("ragged feature ", key, " has ", total,
                                                   " values, too many for int32 row splits"));
  }
  absl::StatusOr<Tensor*> values = ctx.allocate_output(values_out, dtype, {total});
  if (!values.ok()) return values.status();
  // TensorFlow gives a scalar input's ragged feature no row splits at all.
  const int64_t num_splits = scalar_input ? 0 : batch.size() + 1;
  absl::StatusOr<Tensor*> splits = ctx.allocate_output(splits_out, split_type, {num_splits});
  if (!splits.ok()) return splits.status();
  int64_t offset = 0;
  for (int64_t i = 0; i <= batch.size(); ++i) {
    if (!scalar_input) {
      if (split_type == DataType::kInt32) {
        (*splits)->data<int32_t>()[i] = static_cast<int32_t>(offset);
      } else {
        (*splits)->data<int64_t>()[i] = offset;
      }
    }
    if (i < batch.size() && found[i] != nullptr) {
      CopyFeature(*found[i], **values, offset);
      offset += FeatureSize(*found[i]);
    }
  }
  return absl::OkStatus();
}

// The keys of one kind: V1 passes one scalar input each, V2 one vector input.
absl::StatusOr<std::vector<std::string>> ReadKeys(const KernelContext& ctx, Version version,
                                                  int first_input, int count,
                                                  absl::string_view kind,
                                                  absl::string_view types_attr) {
  std::vector<std::string> keys;
  if (version == Version::kV1) {
    for (int i = 0; i < count; ++i) {
      const Tensor& t = ctx.input(first_input + i);
      if (t.dtype() != DataType::kString || t.num_elements() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind, "[", i, "] must be a string scalar, got ", t.DebugString()));
      }
      keys.push_back(t.data<std::string>()[0]);
    }
    return keys;
  }
  const Tensor& t = ctx.input(first_input);
  if (t.dtype() != DataType::kString || t.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " must be a string vector, got ", t.DebugString()));
  }
  if (t.num_elements() != count) {
    return absl::InvalidArgumentError(absl::StrCat("Expected len(", kind, ") == len(", types_attr,
                                                   ") but got: ", t.num_elements(), " vs. ",
                                                   count));
  }
  keys.assign(t.data<std::string>(), t.data<std::string>() + t.num_elements());
  return keys;
}

absl::Status ComputeParseExample(KernelContext& ctx, Version version) {
  absl::StatusOr<ParseAttrs> a = ReadParseAttrs(ctx.attrs(), version);
  if (!a.ok()) return a.status();
  if (absl::Status s = CheckNumInputs(*a, ctx.num_inputs()); !s.ok()) return s;

  const Tensor& serialized = ctx.input(0);
  const Tensor& names = ctx.input(1);
  if (serialized.dtype() != DataType::kString ||
      (version == Version::kV1 ? serialized.rank() != 1 : serialized.rank() > 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected serialized to be ", version == Version::kV1 ? "a" : "a scalar or",
                     " string vector, got ", serialized.DebugString()));
  }
  if (names.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("names must be a string tensor, got ", names.DebugString()));
  }
  if (names.num_elements() > 0 && names.shape() != serialized.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected names to have the same shape as serialized: names.shape=",
        ShapeToString(names.shape()), ", serialized.shape=", ShapeToString(serialized.shape())));
  }

  const int ns = a->num_sparse(), nd = a->num_dense(), nr = a->num_ragged();
  absl::StatusOr<std::vector<std::string>> sparse_keys =
      ReadKeys(ctx, version, 2, ns, "sparse_keys", "sparse_types");
  if (!sparse_keys.ok()) return sparse_keys.status();
  absl::StatusOr<std::vector<std::string>> dense_keys =
      ReadKeys(ctx, version, version == Version::kV1 ? 2 + ns : 3, nd, "dense_keys", "Tdense");
  if (!dense_keys.ok()) return dense_keys.status();
  std::vector<std::string> ragged_keys;
  if (version == Version::kV2) {
    absl::StatusOr<std::vector<std::string>> keys =
        ReadKeys(ctx, version, 4, nr, "ragged_keys", "ragged_value_types");
    if (!keys.ok()) return keys.status();
    ragged_keys = *std::move(keys);
  }

  for (int d = 0; d < nd; ++d) {
    const Tensor& def = ctx.input(a->first_default_input() + d);
    if (def.dtype() != a->dense_types[d]) {
      return absl::InvalidArgumentError(absl::StrCat("dense_defaults[", d, "] is ",
                                                     DataTypeName(def.dtype()), " but Tdense[", d,
                                                     "] is ", DataTypeName(a->dense_types[d])));
    }
    const PartialShape& shape = a->dense_shapes[d];
    if (a->variable_length(d)) {
      if (def.num_elements() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dense_shapes[", d, "] ", shape.ToString(), " (feature ", (*dense_keys)[d],
            ") has variable length, so dense_defaults[", d,
            "] must hold a single padding element, but its shape is ", ShapeToString(def.shape())));
      }
    } else if (def.num_elements() > 0 && def.shape() != shape.dims) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dense_defaults[", d, "] (feature ", (*dense_keys)[d], ") has shape ",
          ShapeToString(def.shape()), ", which is not dense_shapes[", d, "] ", shape.ToString()));
    }
  }

  const bool scalar_input = serialized.rank() == 0;
  std::vector<tfproto::Example> examples(static_cast<size_t>(serialized.num_elements()));
  for (size_t i = 0; i < examples.size(); ++i) {
    const std::string& bytes = serialized.data<std::string>()[i];
    if (!examples[i].ParseFromString(bytes)) {
      constexpr size_t kShown = 64;
      return absl::InvalidArgumentError(absl::StrCat(
          "Could not parse example input at index ", i,
          " (name: ", names.num_elements() > 0 ? names.data<std::string>()[i] : "<unknown>", ", ",
          bytes.size(), " bytes), value: '", absl::CHexEscape(bytes.substr(0, kShown)),
          bytes.size() > kShown ? "...'" : "'"));
    }
  }
  const ExampleBatch batch(names, std::move(examples));
  const Shape prefix = serialized.shape();

  for (int i = 0; i < ns; ++i) {
    if (absl::Status s = ParseSparse(batch, scalar_input, (*sparse_keys)[i], a->sparse_types[i],
                                     ctx, i, ns + i, 2 * ns + i);
        !s.ok()) {
      return s;
    }
  }
  for (int d = 0; d < nd; ++d) {
    const Tensor& def = ctx.input(a->first_default_input() + d);
    const Shape& dims = a->dense_shapes[d].dims;
    absl::Status s = a->variable_length(d)
                         ? ParseVarLenDense(batch, prefix, (*dense_keys)[d], a->dense_types[d],
                                            dims, def, ctx, 3 * ns + d)
                         : ParseFixedDense(batch, prefix, (*dense_keys)[d], a->dense_types[d], dims,
                                           def, ctx, 3 * ns + d);
    if (!s.ok()) return s;
  }
  for (int i = 0; i < nr; ++i) {
    if (absl::Status s =
            ParseRagged(batch, scalar_input, ragged_keys[i], a->ragged_value_types[i],
                        a->ragged_split_types[i], ctx, 3 * ns + nd + i, 3 * ns + nd + nr + i);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterParseExampleOps(KernelRegistry& r) {
  for (Version v : {Version::kV1, Version::kV2}) {
    const std::string op(OpName(v));
    r.AddKernel(
        {op, kCpu, "", {}, [v](KernelContext& ctx) { return ComputeParseExample(ctx, v); }});
  }
}

}  // namespace smrt::kernels
