#include "ops/lookup_table.h"

#include <shared_mutex>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {
namespace {

template <typename T>
std::string ElementText(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return absl::StrCat("'", v, "'");
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else {
    return absl::StrCat(v);
  }
}

template <typename K, typename V>
class ScalarTable : public LookupTable {
 public:
  using LookupTable::LookupTable;

  absl::Status Insert(const Tensor& keys, const Tensor& values, bool replace) override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    const int64_t n = keys.num_elements();
    std::unique_lock<std::shared_mutex> lock(mu_);
    if (kind() == TableKind::kMutableHash) {
      if (replace) map_.clear();
      for (int64_t i = 0; i < n; ++i) map_.insert_or_assign(k[i], v[i]);
      return absl::OkStatus();
    }
    if (initialized_) {
      // Re-running an initializer is accepted when it brings as many entries
      // as the table holds; like TensorFlow, only the counts are compared.
      if (static_cast<int64_t>(map_.size()) != n) {
        return absl::FailedPreconditionError(
            absl::StrCat("table '", name(), "' was already initialized with different data"));
      }
      return absl::OkStatus();
    }
    absl::flat_hash_map<K, V> fresh;
    fresh.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto [it, added] = fresh.try_emplace(k[i], v[i]);
      if (!added && !(it->second == v[i])) {
        return absl::FailedPreconditionError(absl::StrCat(
            "table '", name(), "' has different values for the same key: key ", ElementText(k[i]),
            " has ", ElementText(it->second), " and trying to add value ", ElementText(v[i])));
      }
    }
    map_ = std::move(fresh);
    initialized_ = true;
    return absl::OkStatus();
  }

  absl::Status Remove(const Tensor& keys) override {
    if (kind() != TableKind::kMutableHash) {
      return absl::InvalidArgumentError(
          absl::StrCat("table '", name(), "' is a HashTable, which does not support removal"));
    }
    const K* k = keys.data<K>();
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < keys.num_elements(); ++i) map_.erase(k[i]);
    return absl::OkStatus();
  }

  absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor& out) const override {
    const K* k = keys.data<K>();
    V* o = out.data<V>();
    const int64_t n = keys.num_elements();
    if (n == 0) return absl::OkStatus();
    const V& fallback = default_value.data<V>()[0];
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (kind() == TableKind::kHash && !initialized_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "table '", name(),
          "' is not initialized: its initializer (InitializeTableV2, LookupTableImportV2 or "
          "InitializeTableFromTextFileV2, usually run by the model's init op) has not run"));
    }
    for (int64_t i = 0; i < n; ++i) {
      auto it = map_.find(k[i]);
      o[i] = it == map_.end() ? fallback : it->second;
    }
    return absl::OkStatus();
  }

  int64_t Size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return static_cast<int64_t>(map_.size());
  }

  absl::Status Export(Tensor& keys, Tensor& values) const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(map_.size());
    absl::StatusOr<Tensor> k = Tensor::Create(key_dtype(), {n});
    if (!k.ok()) return k.status();
    absl::StatusOr<Tensor> v = Tensor::Create(value_dtype(), {n});
    if (!v.ok()) return v.status();
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      k->template data<K>()[i] = key;
      v->template data<V>()[i] = value;
      ++i;
    }
    keys = *std::move(k);
    values = *std::move(v);
    return absl::OkStatus();
  }

  bool initialized() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return kind() == TableKind::kMutableHash || initialized_;
  }

 private:
  mutable std::shared_mutex mu_;
  absl::flat_hash_map<K, V> map_;
  bool initialized_ = false;
};

template <typename K>
absl::StatusOr<std::unique_ptr<Resource>> MakeTableWithKey(TableKind kind, DataType key,
                                                           DataType value) {
  switch (value) {
    case DataType::kBool:
      return std::make_unique<ScalarTable<K, bool>>(kind, key, value);
    case DataType::kFloat:
      return std::make_unique<ScalarTable<K, float>>(kind, key, value);
    case DataType::kDouble:
      return std::make_unique<ScalarTable<K, double>>(kind, key, value);
    case DataType::kInt32:
      return std::make_unique<ScalarTable<K, int32_t>>(kind, key, value);
    case DataType::kInt64:
      return std::make_unique<ScalarTable<K, int64_t>>(kind, key, value);
    case DataType::kString:
      return std::make_unique<ScalarTable<K, std::string>>(kind, key, value);
    default:
      return absl::UnimplementedError(absl::StrCat(
          "lookup tables with value_dtype ", DataTypeName(value),
          " are not supported (supported: DT_BOOL, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, "
          "DT_STRING)"));
  }
}

}  // namespace

std::function<absl::StatusOr<std::unique_ptr<Resource>>(const AttrMap&)> TableMaker(
    TableKind kind) {
  return [kind](const AttrMap& attrs) -> absl::StatusOr<std::unique_ptr<Resource>> {
    absl::StatusOr<DataType> key = attrs.Get<DataType>("key_dtype");
    if (!key.ok()) return key.status();
    absl::StatusOr<DataType> value = attrs.Get<DataType>("value_dtype");
    if (!value.ok()) return value.status();
    switch (*key) {
      case DataType::kInt32:
        return MakeTableWithKey<int32_t>(kind, *key, *value);
      case DataType::kInt64:
        return MakeTableWithKey<int64_t>(kind, *key, *value);
      case DataType::kString:
        return MakeTableWithKey<std::string>(kind, *key, *value);
      default:
        return absl::UnimplementedError(
            absl::StrCat("lookup tables with key_dtype ", DataTypeName(*key),
                         " are not supported (supported: DT_INT32, DT_INT64, DT_STRING)"));
    }
  };
}

}  // namespace smrt::ops
