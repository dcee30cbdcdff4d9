#include "core/attr_map.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt {
namespace {

template <typename T>
struct TypeName;
template <> struct TypeName<int64_t> { static constexpr const char* kName = "int"; };
template <> struct TypeName<float> { static constexpr const char* kName = "float"; };
template <> struct TypeName<bool> { static constexpr const char* kName = "bool"; };
template <> struct TypeName<std::string> { static constexpr const char* kName = "string"; };
template <> struct TypeName<DataType> { static constexpr const char* kName = "type"; };
template <> struct TypeName<PartialShape> { static constexpr const char* kName = "shape"; };
template <> struct TypeName<Tensor> { static constexpr const char* kName = "tensor"; };
template <> struct TypeName<FuncAttr> { static constexpr const char* kName = "func"; };
template <> struct TypeName<EmptyList> { static constexpr const char* kName = "list()"; };
template <typename T>
struct TypeName<std::vector<T>> {
  static std::string Name() { return absl::StrCat("list(", TypeName<T>::kName, ")"); }
};

template <typename T>
std::string NameOf() {
  if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>> ||
                std::is_same_v<T, std::vector<bool>> ||
                std::is_same_v<T, std::vector<std::string>> ||
                std::is_same_v<T, std::vector<DataType>> ||
                std::is_same_v<T, std::vector<PartialShape>> ||
                std::is_same_v<T, std::vector<Tensor>> ||
                std::is_same_v<T, std::vector<FuncAttr>>) {
    return TypeName<T>::Name();
  } else {
    return TypeName<T>::kName;
  }
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

}  // namespace

const AttrValue* AttrMap::Find(absl::string_view name) const {
  auto it = attrs_.find(std::string(name));
  return it == attrs_.end() ? nullptr : &it->second;
}

template <typename T>
absl::StatusOr<T> AttrMap::Get(absl::string_view name) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("missing attr '", name, "'"));
  }
  if (const T* t = std::get_if<T>(v)) return *t;
  if constexpr (IsVector<T>::value) {
    if (std::holds_alternative<EmptyList>(*v)) return T{};
  }
  return absl::InvalidArgumentError(absl::StrCat("attr '", name, "' is ", AttrTypeName(*v),
                                                 ", expected ", NameOf<T>()));
}

template absl::StatusOr<int64_t> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<float> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<bool> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::string> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<DataType> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<PartialShape> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<Tensor> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<FuncAttr> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<int64_t>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<float>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<bool>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<std::string>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<DataType>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<PartialShape>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<Tensor>> AttrMap::Get(absl::string_view) const;
template absl::StatusOr<std::vector<FuncAttr>> AttrMap::Get(absl::string_view) const;

std::string AttrTypeName(const AttrValue& value) {
  return std::visit([](const auto& v) { return NameOf<std::decay_t<decltype(v)>>(); }, value);
}

std::string AttrValueToString(const AttrValue& value) {
  struct Printer {
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(float v) const { return absl::StrCat(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return absl::StrCat("\"", v, "\""); }
    std::string operator()(DataType v) const { return std::string(DataTypeName(v)); }
    std::string operator()(const PartialShape& v) const { return v.ToString(); }
    std::string operator()(const Tensor& v) const { return v.DebugString(); }
    std::string operator()(const FuncAttr& v) const { return absl::StrCat("func ", v.name); }
    std::string operator()(const EmptyList&) const { return "[]"; }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<float>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<bool>& v) const {
      std::vector<std::string> s;
      for (bool b : v) s.push_back(b ? "true" : "false");
      return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return absl::StrCat("[\"", absl::StrJoin(v, "\", \""), "\"]");
    }
    std::string operator()(const std::vector<DataType>& v) const {
      std::vector<std::string> s;
      for (DataType t : v) s.emplace_back(DataTypeName(t));
      return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
    }
    std::string operator()(const std::vector<PartialShape>& v) const {
      std::vector<std::string> s;
      for (const auto& p : v) s.push_back(p.ToString());
      return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
    }
    std::string operator()(const std::vector<Tensor>& v) const {
      return absl::StrCat("[", v.size(), " tensors]");
    }
    std::string operator()(const std::vector<FuncAttr>& v) const {
      std::vector<std::string> s;
      for (const auto& f : v) s.push_back(f.name);
      return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
    }
  };
  return std::visit(Printer{}, value);
}

}  // namespace smrt
