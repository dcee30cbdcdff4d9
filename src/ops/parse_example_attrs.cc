#include "ops/parse_example_attrs.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace smrt::ops::parse_example {
namespace {

// Feature values are float32, int64 or string; ragged row splits int32 or int64.
absl::Status CheckTypes(absl::string_view attr, const std::vector<DataType>& types, bool splits) {
  for (size_t i = 0; i < types.size(); ++i) {
    DataType t = types[i];
    bool ok = splits ? (t == DataType::kInt32 || t == DataType::kInt64)
                     : (t == DataType::kFloat || t == DataType::kInt64 || t == DataType::kString);
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attr '", attr, "'[", i, "] is ", DataTypeName(t),
          "; allowed: ", splits ? "DT_INT32, DT_INT64" : "DT_FLOAT, DT_INT64, DT_STRING"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCount(absl::string_view what, size_t got, absl::string_view attr, int64_t want) {
  if (static_cast<int64_t>(got) != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr '", what, "' has ", got, " entries but '", attr, "' is ", want));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParseAttrs> ReadParseAttrs(const AttrMap& attrs, Version version) {
  ParseAttrs a;
  a.version = version;
  absl::StatusOr<std::vector<DataType>> sparse_types =
      attrs.Get<std::vector<DataType>>("sparse_types");
  if (!sparse_types.ok()) return sparse_types.status();
  absl::StatusOr<std::vector<DataType>> dense_types = attrs.Get<std::vector<DataType>>("Tdense");
  if (!dense_types.ok()) return dense_types.status();
  absl::StatusOr<std::vector<PartialShape>> dense_shapes =
      attrs.Get<std::vector<PartialShape>>("dense_shapes");
  if (!dense_shapes.ok()) return dense_shapes.status();
  a.sparse_types = *std::move(sparse_types);
  a.dense_types = *std::move(dense_types);
  a.dense_shapes = *std::move(dense_shapes);

  if (version == Version::kV1) {
    absl::StatusOr<int64_t> nsparse = attrs.Get<int64_t>("Nsparse");
    if (!nsparse.ok()) return nsparse.status();
    absl::StatusOr<int64_t> ndense = attrs.Get<int64_t>("Ndense");
    if (!ndense.ok()) return ndense.status();
    if (absl::Status s = CheckCount("sparse_types", a.sparse_types.size(), "Nsparse", *nsparse);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckCount("Tdense", a.dense_types.size(), "Ndense", *ndense); !s.ok()) {
      return s;
    }
  } else {
    absl::StatusOr<int64_t> num_sparse = attrs.Get<int64_t>("num_sparse");
    if (!num_sparse.ok()) return num_sparse.status();
    if (absl::Status s =
            CheckCount("sparse_types", a.sparse_types.size(), "num_sparse", *num_sparse);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::vector<DataType>> values =
        attrs.Get<std::vector<DataType>>("ragged_value_types");
    if (!values.ok()) return values.status();
    absl::StatusOr<std::vector<DataType>> splits =
        attrs.Get<std::vector<DataType>>("ragged_split_types");
    if (!splits.ok()) return splits.status();
    a.ragged_value_types = *std::move(values);
    a.ragged_split_types = *std::move(splits);
    if (a.ragged_value_types.size() != a.ragged_split_types.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attr 'ragged_value_types' has ", a.ragged_value_types.size(),
                       " entries but 'ragged_split_types' has ", a.ragged_split_types.size()));
    }
  }
  if (a.dense_shapes.size() != a.dense_types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr 'dense_shapes' has ", a.dense_shapes.size(),
                     " entries but 'Tdense' has ", a.dense_types.size()));
  }
  for (absl::Status s : {CheckTypes("sparse_types", a.sparse_types, false),
                         CheckTypes("Tdense", a.dense_types, false),
                         CheckTypes("ragged_value_types", a.ragged_value_types, false),
                         CheckTypes("ragged_split_types", a.ragged_split_types, true)}) {
    if (!s.ok()) return s;
  }
  for (size_t d = 0; d < a.dense_shapes.size(); ++d) {
    const PartialShape& shape = a.dense_shapes[d];
    bool ok = shape.known_rank;
    for (size_t i = 0; ok && i < shape.dims.size(); ++i) {
      ok = shape.dims[i] >= 0 || (i == 0 && shape.dims[i] == -1);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dense_shapes[", d, "] has unknown rank or unknown inner dimensions: ", shape.ToString(),
          " (only the first dim may be unknown)"));
    }
    // Fixed shapes: the whole shape; variable length: one row.
    Shape counted(shape.dims.begin() + (a.variable_length(static_cast<int>(d)) ? 1 : 0),
                  shape.dims.end());
    if (absl::StatusOr<int64_t> n = NumElements(counted); !n.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dense_shapes[", d, "] ", shape.ToString(), ": ", n.status().message()));
    }
  }
  return a;
}

absl::StatusOr<int> NumParseOutputs(const AttrMap& attrs, Version version) {
  absl::StatusOr<ParseAttrs> a = ReadParseAttrs(attrs, version);
  if (!a.ok()) return a.status();
  return a->num_outputs();
}

absl::Status CheckNumInputs(const ParseAttrs& a, int num_inputs) {
  if (num_inputs != a.num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpName(a.version), " with ", a.num_sparse(), " sparse and ", a.num_dense(),
                     " dense features takes ", a.num_inputs(), " inputs, got ", num_inputs));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops::parse_example
