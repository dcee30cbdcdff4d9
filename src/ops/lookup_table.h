// The state of the lookup-table ops (HashTableV2, MutableHashTableV2): a
// table of scalar keys and values that the loaded model owns
// (OpSpec::make_resource), filled and read by the table ops' kernels
// (kernels/cpu/reference/lookup_table_ops.cc states their semantics).
// Tables are safe for concurrent use: reads share a lock, writes take it.
#ifndef SMRT_OPS_LOOKUP_TABLE_H_
#define SMRT_OPS_LOOKUP_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// HashTableV2 (initialized once, then read-only) or MutableHashTableV2.
enum class TableKind { kHash, kMutableHash };

// The dtype-independent face of a table; ScalarTable<K, V> implements it.
class LookupTable : public Resource {
 public:
  LookupTable(TableKind kind, DataType key_dtype, DataType value_dtype)
      : kind_(kind), key_dtype_(key_dtype), value_dtype_(value_dtype) {}

  TableKind kind() const { return kind_; }
  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }

  // The name errors use: the handle node's name, recorded when it first runs.
  void set_name(absl::string_view name) {
    std::lock_guard<std::mutex> lock(name_mu_);
    if (name_.empty()) name_ = std::string(name);
  }
  std::string name() const {
    std::lock_guard<std::mutex> lock(name_mu_);
    return name_.empty() ? "<unnamed>" : name_;
  }

  // keys and values are flat tensors of the table's dtypes and equal size.
  // For a kHash table this is the one initialization (repeatable with the
  // same entries); for kMutableHash, `replace` clears the table first.
  virtual absl::Status Insert(const Tensor& keys, const Tensor& values, bool replace) = 0;
  virtual absl::Status Remove(const Tensor& keys) = 0;
  // Fills `out` (same element count as keys) with the values, or
  // `default_value`'s first element for missing keys.
  virtual absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor& out) const = 0;
  virtual int64_t Size() const = 0;
  virtual absl::Status Export(Tensor& keys, Tensor& values) const = 0;
  virtual bool initialized() const = 0;

 private:
  const TableKind kind_;
  const DataType key_dtype_;
  const DataType value_dtype_;
  mutable std::mutex name_mu_;
  std::string name_;
};

// OpSpec::make_resource of a table op: a table of `kind` with the node's
// key_dtype and value_dtype (int32, int64 or string keys; bool, float,
// double, int32, int64 or string values; else Unimplemented).
std::function<absl::StatusOr<std::unique_ptr<Resource>>(const AttrMap&)> TableMaker(TableKind kind);

}  // namespace smrt::ops

#endif  // SMRT_OPS_LOOKUP_TABLE_H_
