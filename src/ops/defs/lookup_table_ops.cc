// Lookup tables: HashTableV2 and MutableHashTableV2 (handles to a table the
// loaded model owns, ops/lookup_table.h) and the ops that fill and read them.
// All are stateful.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/lookup_table.h"

namespace smrt::ops {
namespace {

absl::Status InferHandle(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kResource, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status InferNothing(InferenceContext&) { return absl::OkStatus(); }

absl::StatusOr<int> NoOutputs(const AttrMap&, int) { return 0; }

absl::StatusOr<int> TwoOutputs(const AttrMap&, int) { return 2; }

absl::Status InferInitialize(InferenceContext& ctx) {
  for (int i : {1, 2}) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(i == 1 ? "keys" : "values", " must be a vector, got shape ", s.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status InferTextFileInit(InferenceContext& ctx) {
  const PartialShape& s = ctx.input(1).shape;
  if (s.known_rank && s.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("filename must be a scalar, got shape ", s.ToString()));
  }
  return absl::OkStatus();
}

absl::Status InferFind(InferenceContext& ctx) {
  absl::StatusOr<DataType> tout = ctx.attrs().Get<DataType>("Tout");
  if (!tout.ok()) return tout.status();
  ctx.set_output(0, ValueInfo{*tout, ctx.input(1).shape});
  return absl::OkStatus();
}

absl::Status InferSize(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status InferExport(InferenceContext& ctx) {
  absl::StatusOr<DataType> k = ctx.attrs().Get<DataType>("Tkeys");
  if (!k.ok()) return k.status();
  absl::StatusOr<DataType> v = ctx.attrs().Get<DataType>("Tvalues");
  if (!v.ok()) return v.status();
  ctx.set_output(0, ValueInfo{*k, PartialShape::Known({-1})});
  ctx.set_output(1, ValueInfo{*v, PartialShape::Known({-1})});
  return absl::OkStatus();
}

const std::vector<std::pair<std::string, AttrValue>> kTableAttrDefaults = {
    {"container", std::string()}, {"shared_name", std::string()}, {"use_node_name_sharing", false}};

}  // namespace

void RegisterLookupTableOps(OpRegistry& r) {
  OpSpec hash{"HashTableV2", kTableAttrDefaults, InferHandle,
              nullptr,       /*stateful=*/true,  TableMaker(TableKind::kHash)};
  r.AddOp(std::move(hash));
  OpSpec mutable_hash{"MutableHashTableV2",
                      kTableAttrDefaults,
                      InferHandle,
                      nullptr,
                      true,
                      TableMaker(TableKind::kMutableHash)};
  r.AddOp(std::move(mutable_hash));

  r.AddOp({"InitializeTableV2", {}, InferInitialize, NoOutputs, true});
  r.AddOp({"InitializeTableFromTextFileV2",
           {{"vocab_size", int64_t{-1}}, {"delimiter", std::string("\t")}, {"offset", int64_t{0}}},
           InferTextFileInit,
           NoOutputs,
           true});
  r.AddOp({"LookupTableImportV2", {}, InferNothing, NoOutputs, true});
  r.AddOp({"LookupTableInsertV2", {}, InferNothing, NoOutputs, true});
  r.AddOp({"LookupTableRemoveV2", {}, InferNothing, NoOutputs, true});

  r.AddOp({"LookupTableFindV2", {}, InferFind, nullptr, true});
  r.AddOp({"LookupTableSizeV2", {}, InferSize, nullptr, true});
  r.AddOp({"LookupTableExportV2", {}, InferExport, TwoOutputs, true});
}

}  // namespace smrt::ops
