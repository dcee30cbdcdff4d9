// Node attributes, converted from TensorFlow's AttrValue into plain C++ types.
#ifndef SMRT_CORE_ATTR_MAP_H_
#define SMRT_CORE_ATTR_MAP_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt {

class AttrMap;

// A function reference with its own attrs (AttrValue.func).
struct FuncAttr {
  std::string name;
  std::shared_ptr<const AttrMap> attrs;
};

// An empty AttrValue list carries no element type; it reads as an empty list
// of whatever type the caller asks for.
struct EmptyList {};

using AttrValue =
    std::variant<int64_t, float, bool, std::string, DataType, PartialShape, Tensor,
                 FuncAttr, EmptyList, std::vector<int64_t>, std::vector<float>,
                 std::vector<bool>, std::vector<std::string>, std::vector<DataType>,
                 std::vector<PartialShape>, std::vector<Tensor>, std::vector<FuncAttr>>;

class AttrMap {
 public:
  void Set(std::string name, AttrValue value) { attrs_[std::move(name)] = std::move(value); }
  bool Has(absl::string_view name) const { return attrs_.count(std::string(name)) > 0; }
  const AttrValue* Find(absl::string_view name) const;

  // The attr as T. InvalidArgument naming the attr when it is missing or holds
  // another type. T is one of AttrValue's alternatives (not EmptyList).
  template <typename T>
  absl::StatusOr<T> Get(absl::string_view name) const;

  // Like Get, but `fallback` when the attr is missing (still an error for a
  // wrong type).
  template <typename T>
  absl::StatusOr<T> GetOr(absl::string_view name, T fallback) const {
    if (!Has(name)) return fallback;
    return Get<T>(name);
  }

  const std::map<std::string, AttrValue>& all() const { return attrs_; }
  size_t size() const { return attrs_.size(); }

 private:
  std::map<std::string, AttrValue> attrs_;
};

// "int", "list(float)", ... for messages.
std::string AttrTypeName(const AttrValue& value);

// Short text of a value for logs and dumps ("[1, 2]", "DT_FLOAT", ...).
std::string AttrValueToString(const AttrValue& value);

}  // namespace smrt

#endif  // SMRT_CORE_ATTR_MAP_H_
