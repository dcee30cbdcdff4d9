#include "graph/output_args.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::graph {
namespace {

// How many tensors an output arg has: fixed 1, the int attr `count_attr`,
// or the length of the list(type) attr `list_attr`.
struct ArgDef {
  const char* name;
  const char* count_attr = nullptr;
  const char* list_attr = nullptr;
};

const absl::flat_hash_map<std::string, std::vector<ArgDef>>& Table() {
  static const auto* table = new absl::flat_hash_map<std::string, std::vector<ArgDef>>{
      {"FusedBatchNorm",
       {{"y"}, {"batch_mean"}, {"batch_variance"}, {"reserve_space_1"}, {"reserve_space_2"}}},
      {"FusedBatchNormV2",
       {{"y"}, {"batch_mean"}, {"batch_variance"}, {"reserve_space_1"}, {"reserve_space_2"}}},
      {"FusedBatchNormV3",
       {{"y"},
        {"batch_mean"},
        {"batch_variance"},
        {"reserve_space_1"},
        {"reserve_space_2"},
        {"reserve_space_3"}}},
      {"ParseExample",
       {{"sparse_indices", "Nsparse"},
        {"sparse_values", nullptr, "sparse_types"},
        {"sparse_shapes", "Nsparse"},
        {"dense_values", nullptr, "Tdense"}}},
      {"ParseExampleV2",
       {{"sparse_indices", "num_sparse"},
        {"sparse_values", nullptr, "sparse_types"},
        {"sparse_shapes", "num_sparse"},
        {"dense_values", nullptr, "Tdense"},
        {"ragged_values", nullptr, "ragged_value_types"},
        {"ragged_row_splits", nullptr, "ragged_split_types"}}},
      {"TopKV2", {{"values"}, {"indices"}}},
      {"TopK", {{"values"}, {"indices"}}},
      {"MaxPoolWithArgmax", {{"output"}, {"argmax"}}},
      {"FractionalMaxPool", {{"output"}, {"row_pooling_sequence"}, {"col_pooling_sequence"}}},
      {"FractionalAvgPool", {{"output"}, {"row_pooling_sequence"}, {"col_pooling_sequence"}}},
      {"SoftmaxCrossEntropyWithLogits", {{"loss"}, {"backprop"}}},
      {"SparseSoftmaxCrossEntropyWithLogits", {{"loss"}, {"backprop"}}},
      {"Unique", {{"y"}, {"idx"}}},
      {"UniqueV2", {{"y"}, {"idx"}}},
      {"UniqueWithCounts", {{"y"}, {"idx"}, {"count"}}},
      {"UniqueWithCountsV2", {{"y"}, {"idx"}, {"count"}}},
      {"ListDiff", {{"out"}, {"idx"}}},
      {"Switch", {{"output_false"}, {"output_true"}}},
      {"RefSwitch", {{"output_false"}, {"output_true"}}},
      {"Merge", {{"output"}, {"value_index"}}},
      {"StringSplit", {{"indices"}, {"values"}, {"shape"}}},
      {"StringSplitV2", {{"indices"}, {"values"}, {"shape"}}},
      {"SparseFillEmptyRows",
       {{"output_indices"}, {"output_values"}, {"empty_row_indicator"}, {"reverse_index_map"}}},
      {"SparseReshape", {{"output_indices"}, {"output_shape"}}},
      {"SparseReorder", {{"output_indices"}, {"output_values"}}},
      {"SparseConcat", {{"output_indices"}, {"output_values"}, {"output_shape"}}},
      {"SparseSlice", {{"output_indices"}, {"output_values"}, {"output_shape"}}},
      {"SparseAdd", {{"sum_indices"}, {"sum_values"}, {"sum_shape"}}},
      {"DynamicPartition", {{"outputs", "num_partitions"}}},
      {"LookupTableExportV2", {{"keys"}, {"values"}}},
      {"Svd", {{"s"}, {"u"}, {"v"}}},
      {"SelfAdjointEigV2", {{"e"}, {"v"}}},
      {"LogMatrixDeterminant", {{"sign"}, {"log_abs_determinant"}}},
      {"BroadcastGradientArgs", {{"r0"}, {"r1"}}},
      {"CTCGreedyDecoder",
       {{"decoded_indices"}, {"decoded_values"}, {"decoded_shape"}, {"log_probability"}}},
      {"DecodeWav", {{"audio"}, {"sample_rate"}}},
      {"StringNGrams", {{"ngrams"}, {"ngrams_splits"}}},
      {"UnicodeDecode", {{"row_splits"}, {"char_values"}}},
      {"UnicodeDecodeWithOffsets", {{"row_splits"}, {"char_values"}, {"char_to_byte_starts"}}},
      {"CTCBeamSearchDecoder",
       {{"decoded_indices", "top_paths"},
        {"decoded_values", "top_paths"},
        {"decoded_shape", "top_paths"},
        {"log_probability"}}},
      {"NonMaxSuppressionV4", {{"selected_indices"}, {"valid_outputs"}}},
      {"NonMaxSuppressionV5",
       {{"selected_indices"}, {"selected_scores"}, {"valid_outputs"}}},
      {"CombinedNonMaxSuppression",
       {{"nmsed_boxes"}, {"nmsed_scores"}, {"nmsed_classes"}, {"valid_detections"}}},
      {"RaggedTensorToSparse",
       {{"sparse_indices"}, {"sparse_values"}, {"sparse_dense_shape"}}},
      {"RaggedRange", {{"rt_nested_splits"}, {"rt_dense_values"}}},
      {"RaggedGather", {{"output_nested_splits", "OUTPUT_RAGGED_RANK"}, {"output_dense_values"}}},
      {"WordpieceTokenizeWithOffsets",
       {{"output_values"}, {"output_row_lengths"}, {"start_values"}, {"limit_values"}}},
      {"RegexSplitWithOffsets", {{"tokens"}, {"begin_offsets"}, {"end_offsets"}, {"row_splits"}}},
  };
  return *table;
}

absl::StatusOr<int> ArgSize(const ArgDef& arg, const AttrMap& attrs) {
  if (arg.count_attr != nullptr) {
    absl::StatusOr<int64_t> n = attrs.GetOr<int64_t>(arg.count_attr, 0);
    if (!n.ok()) return n.status();
    return static_cast<int>(*n);
  }
  if (arg.list_attr != nullptr) {
    absl::StatusOr<std::vector<DataType>> types =
        attrs.GetOr<std::vector<DataType>>(arg.list_attr, {});
    if (!types.ok()) return types.status();
    return static_cast<int>(types->size());
  }
  return 1;
}

}  // namespace

absl::StatusOr<int> FlatOutputIndex(absl::string_view op, const AttrMap& attrs,
                                    absl::string_view arg, int index) {
  auto it = Table().find(op);
  if (it == Table().end()) return index;
  int offset = 0;
  for (const ArgDef& def : it->second) {
    absl::StatusOr<int> size = ArgSize(def, attrs);
    if (!size.ok()) return size.status();
    if (arg == def.name) {
      if (index < 0 || index >= *size) {
        return absl::InvalidArgumentError(absl::StrCat("output ", arg, ":", index, " of ", op,
                                                       " is out of range (", *size, " outputs)"));
      }
      return offset + index;
    }
    offset += *size;
  }
  return absl::InvalidArgumentError(absl::StrCat(op, " has no output arg '", arg, "'"));
}

}  // namespace smrt::graph
