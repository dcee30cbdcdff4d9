#include "graph/attr_from_proto.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loader/tensor_proto.h"

namespace smrt::graph {
namespace {

absl::StatusOr<DataType> TypeFromProto(int t) {
  DataType d = DataTypeFromProto(t);
  if (d == DataType::kInvalid && t != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "dtype ",
        tfproto::DataType_IsValid(t) ? tfproto::DataType_Name(static_cast<tfproto::DataType>(t))
                                     : absl::StrCat(t),
        " is not supported"));
  }
  return d;
}

absl::StatusOr<FuncAttr> FuncFromProto(const tfproto::NameAttrList& f) {
  absl::StatusOr<AttrMap> attrs = AttrMapFromProto(f.attr());
  if (!attrs.ok()) return attrs.status();
  return FuncAttr{f.name(), std::make_shared<AttrMap>(*std::move(attrs))};
}

}  // namespace

absl::StatusOr<AttrValue> AttrFromProto(const tfproto::AttrValue& p) {
  switch (p.value_case()) {
    case tfproto::AttrValue::kS: return std::string(p.s());
    case tfproto::AttrValue::kI: return static_cast<int64_t>(p.i());
    case tfproto::AttrValue::kF: return p.f();
    case tfproto::AttrValue::kB: return p.b();
    case tfproto::AttrValue::kType: {
      absl::StatusOr<DataType> t = TypeFromProto(p.type());
      if (!t.ok()) return t.status();
      return *t;
    }
    case tfproto::AttrValue::kShape: {
      absl::StatusOr<PartialShape> s = loader::PartialShapeFromProto(p.shape());
      if (!s.ok()) return s.status();
      return *s;
    }
    case tfproto::AttrValue::kTensor: {
      absl::StatusOr<Tensor> t = loader::TensorFromProto(p.tensor());
      if (!t.ok()) return t.status();
      return *t;
    }
    case tfproto::AttrValue::kFunc: {
      absl::StatusOr<FuncAttr> f = FuncFromProto(p.func());
      if (!f.ok()) return f.status();
      return *f;
    }
    case tfproto::AttrValue::kPlaceholder:
      return absl::InvalidArgumentError(
          absl::StrCat("attr is an unresolved placeholder '", p.placeholder(), "'"));
    case tfproto::AttrValue::kList:
      break;
    case tfproto::AttrValue::VALUE_NOT_SET:
      return EmptyList{};
  }
  const auto& l = p.list();
  if (l.s_size() > 0) return std::vector<std::string>(l.s().begin(), l.s().end());
  if (l.i_size() > 0) return std::vector<int64_t>(l.i().begin(), l.i().end());
  if (l.f_size() > 0) return std::vector<float>(l.f().begin(), l.f().end());
  if (l.b_size() > 0) return std::vector<bool>(l.b().begin(), l.b().end());
  if (l.type_size() > 0) {
    std::vector<DataType> types;
    for (int t : l.type()) {
      absl::StatusOr<DataType> d = TypeFromProto(t);
      if (!d.ok()) return d.status();
      types.push_back(*d);
    }
    return types;
  }
  if (l.shape_size() > 0) {
    std::vector<PartialShape> shapes;
    for (const auto& s : l.shape()) {
      absl::StatusOr<PartialShape> ps = loader::PartialShapeFromProto(s);
      if (!ps.ok()) return ps.status();
      shapes.push_back(*ps);
    }
    return shapes;
  }
  if (l.tensor_size() > 0) {
    std::vector<Tensor> tensors;
    for (const auto& t : l.tensor()) {
      absl::StatusOr<Tensor> v = loader::TensorFromProto(t);
      if (!v.ok()) return v.status();
      tensors.push_back(*v);
    }
    return tensors;
  }
  if (l.func_size() > 0) {
    std::vector<FuncAttr> funcs;
    for (const auto& f : l.func()) {
      absl::StatusOr<FuncAttr> fa = FuncFromProto(f);
      if (!fa.ok()) return fa.status();
      funcs.push_back(*fa);
    }
    return funcs;
  }
  return EmptyList{};
}

absl::StatusOr<AttrMap> AttrMapFromProto(
    const google::protobuf::Map<std::string, tfproto::AttrValue>& attrs) {
  AttrMap out;
  for (const auto& [name, value] : attrs) {
    if (!name.empty() && name[0] == '_') continue;  // internal attrs (_output_shapes...)
    absl::StatusOr<AttrValue> v = AttrFromProto(value);
    if (!v.ok()) {
      return absl::Status(v.status().code(),
                          absl::StrCat("attr '", name, "': ", v.status().message()));
    }
    out.Set(name, *std::move(v));
  }
  return out;
}

}  // namespace smrt::graph
