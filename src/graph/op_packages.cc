#include "graph/op_packages.h"

#include "absl/strings/match.h"

namespace smrt::graph {
namespace {

struct Prefix {
  const char* prefix;
  const char* package;
};

// Namespaced ops ("Addons>GeluOp") and op-name families of each package, from
// the packages' REGISTER_OP calls.
constexpr Prefix kPrefixes[] = {
    {"Addons>", "tensorflow_addons"},
    {"IO>", "tensorflow_io"},
    {"Scann>", "scann"},
    {"TFText>", "tensorflow_text"},
    {"SimpleML", "tensorflow_decision_forests"},
    {"YggdrasilDecisionForests", "tensorflow_decision_forests"},
    {"Sentencepiece", "tensorflow_text (or sentencepiece's tf_sentencepiece)"},
    {"BoostedTreesCustom", "tensorflow_decision_forests"},
};

// Single ops of tensorflow_text (tensorflow_text/core/ops/*.cc).
constexpr const char* kTensorflowTextOps[] = {
    "CaseFoldUTF8",
    "ConstrainedSequence",
    "FastBertNormalize",
    "FastBertNormalizeModelFromConfig",
    "FastWordpieceTokenizeWithOffsets",
    "FastWordpieceDetokenize",
    "MaxSpanningTree",
    "NgramsStringJoin",
    "NormalizeUTF8",
    "NormalizeUTF8WithOffsetsMap",
    "FindSourceOffsets",
    "RegexSplitWithOffsets",
    "RougeL",
    "SplitMergeTokenizeWithOffsets",
    "SplitMergeFromLogitsTokenizeWithOffsets",
    "TokenizerFromLogits",
    "UnicodeScriptTokenizeWithOffsets",
    "WhitespaceTokenizeWithOffsets",
    "WhitespaceTokenizeWithOffsetsV2",
    "WordpieceTokenizeWithOffsets",
    "BoiseOffsetConverter",
    "SpanAlignment",
    "SpanOverlaps",
    "ByteSplitWithOffsets",
    "MecabTokenizeWithOffsets",
    "TFText>RoundRobinGenerateMasks",
    "TFText>RoundRobinTrim",
    "TFText>SentenceFragments",
};

}  // namespace

absl::string_view PackageOfOp(absl::string_view op) {
  for (const Prefix& p : kPrefixes) {
    if (absl::StartsWith(op, p.prefix)) return p.package;
  }
  for (const char* name : kTensorflowTextOps) {
    if (op == name) return "tensorflow_text";
  }
  return "";
}

namespace {

constexpr const char* kCheckpoint[] = {"Save", "SaveV2", "SaveSlices", "Restore",
                                                "RestoreV2", "RestoreSlice", "MergeV2Checkpoints",
                                                "ShardedFilename", "ShardedFilespec"};

}  // namespace

bool IsCheckpointOp(absl::string_view op) {
  for (const char* name : kCheckpoint) {
    if (op == name) return true;
  }
  return false;
}

absl::string_view RefusedOpReason(absl::string_view op) {
  static constexpr const char* kFiles[] = {
      "ReadFile", "WriteFile", "MatchingFiles", "ImmutableConst", "WholeFileReader",
      "WholeFileReaderV2", "TFRecordReader", "TFRecordReaderV2", "FixedLengthRecordReader",
      "FixedLengthRecordReaderV2", "TextLineReader", "TextLineReaderV2", "IdentityReader",
      "IdentityReaderV2", "LMDBReader", "ReaderReadV2", "ReaderRestoreStateV2",
      "InitializeTableFromTextFile", "LoadAndRemapMatrix", "GenerateVocabRemapping",
      "TFRecordDataset", "TFRecordDatasetV2", "TextLineDataset", "FixedLengthRecordDataset",
      "FixedLengthRecordDatasetV2", "SaveDataset", "SaveDatasetV2", "LoadDataset",
      "DatasetToTFRecord", "CreateSummaryFileWriter", "CreateSummaryDbWriter",
      "WriteSummary", "WriteRawProtoSummary", "WriteScalarSummary", "WriteHistogramSummary",
      "WriteImageSummary", "WriteAudioSummary", "WriteGraphSummary", "ImportEvent",
      "FlushSummaryWriter", "CloseSummaryWriter", "DebugIdentity", "DebugIdentityV2",
      "DebugIdentityV3", "DebugNanCount", "DebugNumericSummary", "DebugNumericSummaryV2"};
  static constexpr const char* kProcess[] = {
      "Abort", "_Send", "_Recv", "_HostSend", "_HostRecv", "Send", "Recv", "RpcCall",
      "RpcClient", "RpcServer", "RpcServerRegister", "RpcServerStart", "Rpc", "TryRpc",
      "CollectiveReduce", "CollectiveReduceV2", "CollectiveGather", "CollectiveGatherV2",
      "CollectiveBcastSend", "CollectiveBcastRecv", "CollectiveBcastSendV2",
      "CollectiveBcastRecvV2", "CollectiveAllToAllV2", "CollectiveAllToAllV3",
      "CollectiveReduceV3", "CollectiveInitializeCommunicator"};
  static constexpr const char* kPython[] = {"PyFunc", "PyFuncStateless", "EagerPyFunc"};
  if (IsCheckpointOp(op)) {
    return "reads or writes checkpoint files; smrt restores variables itself at load and "
           "runs inference only";
  }
  for (const char* name : kFiles) {
    if (op == name) return "touches the file system; smrt runs inference only";
  }
  for (const char* name : kProcess) {
    if (op == name) {
      return "talks to other processes or ends this one; smrt runs inference only";
    }
  }
  for (const char* name : kPython) {
    if (op == name) return "calls back into Python, which a C++ runtime cannot do";
  }
  return "";
}

}  // namespace smrt::graph
