// Lookup tables: HashTableV2 (initialized once, then read-only) and
// MutableHashTableV2, with the ops that fill and read them
// (InitializeTableV2, InitializeTableFromTextFileV2, LookupTableImportV2,
// LookupTableInsertV2, LookupTableRemoveV2, LookupTableFindV2,
// LookupTableSizeV2, LookupTableExportV2).
//
// A table is a Resource owned by the loaded model (OpSpec::make_resource);
// nodes with the same op and shared_name share it, so the init op's program
// fills the table that the signatures read. The handle itself carries no
// data: consumers reach the table through KernelContext::resource(0).
//
// Semantics follow TensorFlow's lookup_table_op / lookup_util:
// - A HashTableV2 is initialized once. Initializing it again with as many
//   entries is a no-op (TensorFlow compares only the counts); with another
//   count it is FailedPrecondition. A
//   key given twice with different values is FailedPrecondition. Looking it
//   up before initialization is FailedPrecondition naming the table.
// - LookupTableImportV2 on a HashTableV2 initializes it; on a
//   MutableHashTableV2 it replaces the contents.
// - Find takes a scalar default or one default per key; like TensorFlow's
//   scalar-valued tables it uses the first default element for every miss.
// - Text files: one entry per line ("\n" or "\r\n"), columns split on a
//   one-character delimiter, index -2 = the whole line, -1 = the line number
//   (plus `offset`); an empty line is an error; vocab_size truncates, and a
//   shorter file is an error. int32 columns get `offset` added, as in
//   TensorFlow. Files are only read, never written.
//
// Only scalar keys and values are supported (no MutableHashTableOfTensors,
// DenseHashTable or the TF1 ref-handle ops HashTable/InitializeTable...).
// Tables are safe for concurrent use: reads share a lock, writes take it.
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/run_limits.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"
#include "ops/lookup_table.h"

namespace smrt::kernels {
namespace {

using ops::LookupTable;
using ops::TableKind;

// Files larger than this are refused rather than read into memory.
constexpr uint64_t kMaxTableFileBytes = uint64_t{1} << 31;

absl::StatusOr<LookupTable*> TableOf(Resource* r, absl::string_view node) {
  auto* t = dynamic_cast<LookupTable*>(r);
  if (t == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node '", node, "' is not connected to a lookup table (input 0 must come from a "
        "HashTableV2 or MutableHashTableV2 node)"));
  }
  return t;
}

absl::Status CheckDtype(absl::string_view what, DataType got, DataType want,
                        const LookupTable& table) {
  if (got == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " must be ", DataTypeName(want),
                                                 " for table '", table.name(), "' (",
                                                 DataTypeName(table.key_dtype()), " -> ",
                                                 DataTypeName(table.value_dtype()), "), got ",
                                                 DataTypeName(got)));
}

// Keys and values given to Initialize/Import/Insert: the table's dtypes, and
// values shaped like keys (scalar-valued tables).
absl::Status CheckKeysAndValues(const LookupTable& table, const Tensor& keys,
                                const Tensor& values) {
  if (absl::Status s = CheckDtype("keys", keys.dtype(), table.key_dtype(), table); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckDtype("values", values.dtype(), table.value_dtype(), table);
      !s.ok()) {
    return s;
  }
  if (keys.shape() != values.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected values of shape ", ShapeToString(keys.shape()), " (the keys' shape), got ",
        ShapeToString(values.shape())));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Shape inference.

// ---------------------------------------------------------------------------
// Kernels.

absl::Status ComputeHandle(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.node_resource(), ctx.node_name());
  if (!table.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("lookup table '", ctx.node_name(), "' was not bound to a table"));
  }
  (*table)->set_name(ctx.node_name());
  ctx.set_output(0, Tensor());  // the handle carries no data; consumers use resource(0)
  return absl::OkStatus();
}

absl::Status ComputeInitialize(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  const Tensor& keys = ctx.input(1);
  const Tensor& values = ctx.input(2);
  if (keys.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("keys must be a vector, got shape ", ShapeToString(keys.shape())));
  }
  if (values.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("values must be a vector, got shape ", ShapeToString(values.shape())));
  }
  if (keys.num_elements() != values.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat("keys and values must have the same size: ",
                                                   keys.num_elements(), " vs ",
                                                   values.num_elements()));
  }
  if (absl::Status s = CheckKeysAndValues(**table, keys, values); !s.ok()) return s;
  if ((*table)->kind() != TableKind::kHash) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", (*table)->name(), "' is not initializable (a mutable table)"));
  }
  return (*table)->Insert(keys, values, /*replace=*/false);
}

ComputeFn ImportOrInsert(bool replace) {
  return [replace](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
    if (!table.ok()) return table.status();
    if (absl::Status s = CheckKeysAndValues(**table, ctx.input(1), ctx.input(2)); !s.ok()) {
      return s;
    }
    if (!replace && (*table)->kind() == TableKind::kHash) {
      return absl::InvalidArgumentError(absl::StrCat(
          "table '", (*table)->name(), "' is a HashTable, which does not support insertion"));
    }
    return (*table)->Insert(ctx.input(1), ctx.input(2), replace);
  };
}

absl::Status ComputeRemove(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  if (absl::Status s = CheckDtype("keys", ctx.input(1).dtype(), (*table)->key_dtype(), **table);
      !s.ok()) {
    return s;
  }
  return (*table)->Remove(ctx.input(1));
}

absl::Status ComputeFind(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  const Tensor& keys = ctx.input(1);
  const Tensor& fallback = ctx.input(2);
  if (absl::Status s = CheckDtype("keys", keys.dtype(), (*table)->key_dtype(), **table); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckDtype("default_value", fallback.dtype(), (*table)->value_dtype(), **table);
      !s.ok()) {
    return s;
  }
  if (fallback.rank() != 0 && fallback.shape() != keys.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "default_value must be a scalar or have the keys' shape ", ShapeToString(keys.shape()),
        ", got shape ", ShapeToString(fallback.shape())));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, (*table)->value_dtype(), keys.shape());
  if (!out.ok()) return out.status();
  return (*table)->Find(keys, fallback, **out);
}

absl::Status ComputeSize(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt64, {});
  if (!out.ok()) return out.status();
  (*out)->data<int64_t>()[0] = (*table)->Size();
  return absl::OkStatus();
}

absl::Status ComputeExport(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  for (const auto& [attr, want] : {std::make_pair("Tkeys", (*table)->key_dtype()),
                                   std::make_pair("Tvalues", (*table)->value_dtype())}) {
    absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>(attr);
    if (!t.ok()) return t.status();
    if (absl::Status s = CheckDtype(attr, *t, want, **table); !s.ok()) return s;
  }
  return (*table)->Export(ctx.output(0), ctx.output(1));
}

// --- InitializeTableFromTextFileV2 ---

constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

struct TextFileSpec {
  std::string filename;
  int64_t key_index = 0;
  int64_t value_index = 0;
  int64_t vocab_size = -1;
  char delimiter = '\t';
  int64_t offset = 0;
};

bool IsIntegerType(DataType t) {
  return t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kInt8 ||
         t == DataType::kInt16 || t == DataType::kUInt8 || t == DataType::kUInt16 ||
         t == DataType::kUInt32 || t == DataType::kUInt64;
}

// Stores one field of line `line_no` into element `i` of `t`.
absl::Status SetField(absl::string_view token, int64_t line_no, const TextFileSpec& spec,
                      Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kInt32: {
      int32_t v;
      if (!absl::SimpleAtoi(token, &v)) {
        return absl::InvalidArgumentError(absl::StrCat("field '", token, "' in line ", line_no,
                                                       " of ", spec.filename,
                                                       " is not a valid int32"));
      }
      t.data<int32_t>()[i] = static_cast<int32_t>(v + spec.offset);  // as TensorFlow does
      return absl::OkStatus();
    }
    case DataType::kInt64: {
      int64_t v;
      if (!absl::SimpleAtoi(token, &v)) {
        return absl::InvalidArgumentError(absl::StrCat("field '", token, "' in line ", line_no,
                                                       " of ", spec.filename,
                                                       " is not a valid int64"));
      }
      t.data<int64_t>()[i] = v;
      return absl::OkStatus();
    }
    case DataType::kFloat: {
      float v;
      if (!absl::SimpleAtof(token, &v)) {
        return absl::InvalidArgumentError(absl::StrCat("field '", token, "' in line ", line_no,
                                                       " of ", spec.filename,
                                                       " is not a valid float"));
      }
      t.data<float>()[i] = v;
      return absl::OkStatus();
    }
    case DataType::kDouble: {
      double v;
      if (!absl::SimpleAtod(token, &v)) {
        return absl::InvalidArgumentError(absl::StrCat("field '", token, "' in line ", line_no,
                                                       " of ", spec.filename,
                                                       " is not a valid double"));
      }
      t.data<double>()[i] = v;
      return absl::OkStatus();
    }
    case DataType::kString:
      t.data<std::string>()[i] = std::string(token);
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(absl::StrCat("a table column of type ",
                                                     DataTypeName(t.dtype()),
                                                     " cannot be read from a text file"));
  }
}

absl::Status FillColumn(int64_t index, absl::string_view line,
                        const std::vector<absl::string_view>& tokens, int64_t line_no,
                        const TextFileSpec& spec, Tensor& t, int64_t i) {
  if (index == kLineNumber) {
    t.data<int64_t>()[i] = line_no + spec.offset;
    return absl::OkStatus();
  }
  return SetField(index == kWholeLine ? line : tokens[static_cast<size_t>(index)], line_no, spec,
                  t, i);
}

// Reads the file into key and value vectors as TensorFlow's
// TextFileLineIterator does.
absl::Status ReadTextFile(const TextFileSpec& spec, const LookupTable& table, Tensor& keys,
                          Tensor& values) {
  // A graph names the file in a tensor: a hostile one could name any path,
  // and ReadModelFile reads only inside the model.
  absl::StatusOr<std::string> contents = ReadModelFile(spec.filename, kMaxTableFileBytes);
  if (!contents.ok()) return contents.status();
  std::vector<absl::string_view> lines;
  absl::string_view rest = *contents;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    absl::string_view line = rest.substr(0, nl);
    rest = nl == absl::string_view::npos ? absl::string_view() : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() && rest.empty() && nl == absl::string_view::npos) break;
    lines.push_back(line);
  }
  if (spec.vocab_size >= 0) {
    if (static_cast<int64_t>(lines.size()) < spec.vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat("invalid vocab_size in ", spec.filename,
                                                     ": expected ", spec.vocab_size,
                                                     " but got ", lines.size()));
    }
    lines.resize(static_cast<size_t>(spec.vocab_size));
  }
  const int64_t n = static_cast<int64_t>(lines.size());
  absl::StatusOr<Tensor> k = Tensor::Create(table.key_dtype(), {n});
  if (!k.ok()) return k.status();
  absl::StatusOr<Tensor> v = Tensor::Create(table.value_dtype(), {n});
  if (!v.ok()) return v.status();
  const int64_t columns = std::max(spec.key_index, spec.value_index) + 1;
  std::vector<absl::string_view> tokens;
  for (int64_t i = 0; i < n; ++i) {
    absl::string_view line = lines[static_cast<size_t>(i)];
    if (line.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("invalid content in ", spec.filename,
                                                     ": line ", i, " is empty"));
    }
    tokens.clear();
    if (columns > 0) {
      tokens = absl::StrSplit(line, spec.delimiter);
      if (static_cast<int64_t>(tokens.size()) < columns) {
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid number of columns in ", spec.filename, " line ", i, " (", line,
            "): expected at least ", columns, ", got ", tokens.size()));
      }
    }
    if (absl::Status s = FillColumn(spec.key_index, line, tokens, i, spec, *k, i); !s.ok()) {
      return s;
    }
    if (absl::Status s = FillColumn(spec.value_index, line, tokens, i, spec, *v, i); !s.ok()) {
      return s;
    }
  }
  keys = *std::move(k);
  values = *std::move(v);
  return absl::OkStatus();
}

absl::Status ComputeInitializeFromTextFile(KernelContext& ctx) {
  absl::StatusOr<LookupTable*> table = TableOf(ctx.resource(0), ctx.node_name());
  if (!table.ok()) return table.status();
  const LookupTable& t = **table;
  if (t.kind() != TableKind::kHash) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", t.name(), "' is not initializable (a mutable table)"));
  }
  const Tensor& filename = ctx.input(1);
  if (filename.dtype() != DataType::kString || filename.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("filename must be a scalar string, got ",
                                                   filename.DebugString()));
  }
  TextFileSpec spec;
  spec.filename = filename.data<std::string>()[0];
  const AttrMap& attrs = ctx.attrs();
  absl::StatusOr<int64_t> key_index = attrs.Get<int64_t>("key_index");
  if (!key_index.ok()) return key_index.status();
  absl::StatusOr<int64_t> value_index = attrs.Get<int64_t>("value_index");
  if (!value_index.ok()) return value_index.status();
  absl::StatusOr<int64_t> vocab_size = attrs.GetOr<int64_t>("vocab_size", -1);
  if (!vocab_size.ok()) return vocab_size.status();
  absl::StatusOr<std::string> delimiter = attrs.GetOr<std::string>("delimiter", "\t");
  if (!delimiter.ok()) return delimiter.status();
  absl::StatusOr<int64_t> offset = attrs.GetOr<int64_t>("offset", 0);
  if (!offset.ok()) return offset.status();
  if (*key_index < kWholeLine || *value_index < kWholeLine) {
    return absl::InvalidArgumentError(absl::StrCat("key_index (", *key_index,
                                                   ") and value_index (", *value_index,
                                                   ") must be >= -2"));
  }
  if (*vocab_size < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocab_size must be -1 (whole file) or >= 0, got ", *vocab_size));
  }
  if (delimiter->size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "delimiter must be exactly one character, got '", *delimiter, "'"));
  }
  spec.key_index = *key_index;
  spec.value_index = *value_index;
  spec.vocab_size = *vocab_size;
  spec.delimiter = (*delimiter)[0];
  spec.offset = *offset;
  if (spec.key_index == kLineNumber && t.key_dtype() != DataType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key_index -1 (line number) needs int64 keys, table '", t.name(), "' has ",
        DataTypeName(t.key_dtype())));
  }
  if (spec.value_index == kLineNumber && t.value_dtype() != DataType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "value_index -1 (line number) needs int64 values, table '", t.name(), "' has ",
        DataTypeName(t.value_dtype())));
  }
  if (spec.key_index == kWholeLine && !IsIntegerType(t.key_dtype()) &&
      t.key_dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("key_index -2 (whole line) needs string or integer keys, table '", t.name(),
                     "' has ", DataTypeName(t.key_dtype())));
  }
  if (spec.value_index == kWholeLine && !IsIntegerType(t.value_dtype()) &&
      t.value_dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("value_index -2 (whole line) needs string or integer values, table '",
                     t.name(), "' has ", DataTypeName(t.value_dtype())));
  }
  Tensor keys, values;
  if (absl::Status s = ReadTextFile(spec, t, keys, values); !s.ok()) return s;
  absl::Status s = (*table)->Insert(keys, values, /*replace=*/false);
  // As in TensorFlow, a table already initialized (e.g. from the same file)
  // is left as it is.
  if (absl::IsFailedPrecondition(s) && t.initialized()) return absl::OkStatus();
  return s;
}

}  // namespace

void RegisterLookupTableOps(KernelRegistry& r) {
  r.AddKernel({"HashTableV2", kCpu, "", {}, ComputeHandle});
  r.AddKernel({"MutableHashTableV2", kCpu, "", {}, ComputeHandle});
  r.AddKernel({"InitializeTableV2", kCpu, "", {}, ComputeInitialize});
  r.AddKernel({"InitializeTableFromTextFileV2", kCpu, "", {}, ComputeInitializeFromTextFile});
  r.AddKernel({"LookupTableImportV2", kCpu, "", {}, ImportOrInsert(/*replace=*/true)});
  r.AddKernel({"LookupTableInsertV2", kCpu, "", {}, ImportOrInsert(/*replace=*/false)});
  r.AddKernel({"LookupTableRemoveV2", kCpu, "", {}, ComputeRemove});
  r.AddKernel({"LookupTableFindV2", kCpu, "", {}, ComputeFind});
  r.AddKernel({"LookupTableSizeV2", kCpu, "", {}, ComputeSize});
  r.AddKernel({"LookupTableExportV2", kCpu, "", {}, ComputeExport});
}

}  // namespace smrt::kernels
