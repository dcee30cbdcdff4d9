#include "kernels/tensor_list.h"

#include <map>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

struct TensorList {
  DataType dtype = DataType::kInvalid;
  PartialShape element_shape = PartialShape::Unknown();
  std::vector<Tensor> items;  // invalid Tensor: never set (reads as zeros)
};

constexpr int64_t kMaxListLength = int64_t{1} << 28;
constexpr char kWhat[] = "TensorList";

absl::StatusOr<const TensorList*> ListOf(const Tensor& t) {
  if (t.dtype() != DataType::kVariant || t.variant_object() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a TensorList, got a ", DataTypeName(t.dtype()), " tensor"));
  }
  return static_cast<const TensorList*>(t.variant_object());
}

Tensor Wrap(std::shared_ptr<TensorList> list) { return Tensor::Variant(std::move(list)); }

// element_shape inputs: -1 scalar = unknown rank; -1 dims unknown.
absl::StatusOr<PartialShape> ShapeFromInput(const Tensor& t) {
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(t);
  if (!v.ok()) return v.status();
  if (t.rank() == 0) {
    if ((*v)[0] == -1) return PartialShape::Unknown();
    return absl::InvalidArgumentError("element_shape must be a vector or -1");
  }
  for (int64_t d : *v) {
    if (d < -1) return absl::InvalidArgumentError(absl::StrCat("invalid element dim ", d));
  }
  return PartialShape::Known(*v);
}

// The more specific of two compatible partial shapes.
absl::StatusOr<PartialShape> Merge(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank) return b;
  if (!b.known_rank) return a;
  if (a.dims.size() != b.dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("element shapes ", a.ToString(), " and ", b.ToString(), " differ in rank"));
  }
  PartialShape m = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] >= 0 && b.dims[i] >= 0 && a.dims[i] != b.dims[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("element shapes ", a.ToString(), " and ", b.ToString(), " differ"));
    }
    if (m.dims[i] < 0) m.dims[i] = b.dims[i];
  }
  return m;
}


absl::Status Reserve(KernelContext& ctx) {
  absl::StatusOr<PartialShape> shape = ShapeFromInput(ctx.input(0));
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::vector<int64_t>> n = ToInt64s(ctx.input(1));
  if (!n.ok()) return n.status();
  if (n->size() != 1 || (*n)[0] < 0 || (*n)[0] > kMaxListLength) {
    return absl::InvalidArgumentError("num_elements must be a scalar in [0, 2^28]");
  }
  auto list = std::make_shared<TensorList>();
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("element_dtype");
  if (!dtype.ok()) return dtype.status();
  list->dtype = *dtype;
  list->element_shape = *shape;
  list->items.resize((*n)[0]);
  ctx.set_output(0, Wrap(std::move(list)));
  return absl::OkStatus();
}

absl::Status Empty(KernelContext& ctx) {
  absl::StatusOr<PartialShape> shape = ShapeFromInput(ctx.input(0));
  if (!shape.ok()) return shape.status();
  auto list = std::make_shared<TensorList>();
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("element_dtype");
  if (!dtype.ok()) return dtype.status();
  list->dtype = *dtype;
  list->element_shape = *shape;
  ctx.set_output(0, Wrap(std::move(list)));
  return absl::OkStatus();
}

absl::Status FromTensor(KernelContext& ctx, const DeviceBytes* bytes) {
  const Tensor& t = ctx.input(0);
  if (t.rank() < 1) return absl::InvalidArgumentError("TensorListFromTensor needs rank >= 1");
  absl::StatusOr<PartialShape> shape = ShapeFromInput(ctx.input(1));
  if (!shape.ok()) return shape.status();
  Shape elem(t.shape().begin() + 1, t.shape().end());
  absl::StatusOr<PartialShape> merged = Merge(*shape, PartialShape::Known(elem));
  if (!merged.ok()) return merged.status();
  const DeviceBytes* mover = ElementMover(bytes, t.dtype());
  if (absl::Status s = CheckWhere(t, mover, kWhat); !s.ok()) return s;
  auto list = std::make_shared<TensorList>();
  list->dtype = t.dtype();
  list->element_shape = *merged;
  if (IsFixedSize(t.dtype())) {
    absl::StatusOr<std::vector<Tensor>> rows = SplitRows(ctx, mover, t);
    if (!rows.ok()) return rows.status();
    list->items = *std::move(rows);
  } else {
    const int64_t n = t.dim(0);
    const int64_t per = n == 0 ? 0 : t.num_elements() / n;
    for (int64_t i = 0; i < n; ++i) {
      absl::StatusOr<Tensor> item = Tensor::Create(t.dtype(), elem);
      if (!item.ok()) return item.status();
      for (int64_t j = 0; j < per && t.dtype() == DataType::kString; ++j) {
        item->data<std::string>()[j] = t.data<std::string>()[i * per + j];
      }
      list->items.push_back(*std::move(item));
    }
  }
  ctx.set_output(0, Wrap(std::move(list)));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Index(const Tensor& t, size_t size, bool allow_end) {
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(t);
  if (!v.ok()) return v.status();
  if (v->size() != 1) return absl::InvalidArgumentError("index must be a scalar");
  int64_t i = (*v)[0];
  if (i < 0 || i > static_cast<int64_t>(size) || (!allow_end && i == static_cast<int64_t>(size))) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorList index ", i, " is out of range for a list of ", size));
  }
  return i;
}

absl::Status GetItem(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<int64_t> i = Index(ctx.input(1), (*list)->items.size(), false);
  if (!i.ok()) return i.status();
  const DeviceBytes* mover = ElementMover(bytes, (*list)->dtype);
  const Tensor& item = (*list)->items[*i];
  if (item.valid()) {
    if (absl::Status s = CheckWhere(item, mover, kWhat); !s.ok()) return s;
    ctx.set_output(0, item);
    return absl::OkStatus();
  }
  absl::StatusOr<PartialShape> requested = ShapeFromInput(ctx.input(2));
  if (!requested.ok()) return requested.status();
  absl::StatusOr<PartialShape> shape = Merge((*list)->element_shape, *requested);
  if (!shape.ok()) return shape.status();
  if (!shape->IsFullyKnown()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read an unset TensorList element of partially known shape ", shape->ToString()));
  }
  absl::StatusOr<Tensor> zeros = NewElement(ctx, mover, (*list)->dtype, shape->dims, true);
  if (!zeros.ok()) return zeros.status();
  ctx.set_output(0, *std::move(zeros));
  return absl::OkStatus();
}

absl::Status SetItem(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<bool> resize = ctx.attrs().GetOr<bool>("resize_if_index_out_of_bounds", false);
  if (!resize.ok()) return resize.status();
  absl::StatusOr<std::vector<int64_t>> iv = ToInt64s(ctx.input(1));
  if (!iv.ok()) return iv.status();
  if (iv->size() != 1) return absl::InvalidArgumentError("index must be a scalar");
  int64_t i = (*iv)[0];
  auto next = std::make_shared<TensorList>(**list);
  if (*resize && i >= static_cast<int64_t>(next->items.size()) && i < kMaxListLength) {
    next->items.resize(i + 1);
  }
  if (i < 0 || i >= static_cast<int64_t>(next->items.size())) {
    return absl::InvalidArgumentError(absl::StrCat("TensorList index ", i,
                                                   " is out of range for a list of ",
                                                   next->items.size()));
  }
  const Tensor& item = ctx.input(2);
  if (item.dtype() != next->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("TensorList of ", DataTypeName(next->dtype),
                                                   " cannot hold a ", DataTypeName(item.dtype())));
  }
  if (!next->element_shape.IsCompatibleWith(item.shape())) {
    return absl::InvalidArgumentError(absl::StrCat("item of shape ", ShapeToString(item.shape()),
                                                   " does not fit a TensorList of element shape ",
                                                   next->element_shape.ToString()));
  }
  if (absl::Status s = CheckWhere(item, ElementMover(bytes, next->dtype), kWhat); !s.ok()) {
    return s;
  }
  next->items[i] = item;
  ctx.set_output(0, Wrap(std::move(next)));
  return absl::OkStatus();
}

absl::Status PushBack(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  auto next = std::make_shared<TensorList>(**list);
  if (static_cast<int64_t>(next->items.size()) >= kMaxListLength) {
    return absl::ResourceExhaustedError("TensorList is too long");
  }
  if (ctx.input(1).dtype() != next->dtype ||
      !next->element_shape.IsCompatibleWith(ctx.input(1).shape())) {
    return absl::InvalidArgumentError(absl::StrCat("cannot push a ", ctx.input(1).DebugString(),
                                                   " onto this TensorList"));
  }
  if (absl::Status s = CheckWhere(ctx.input(1), ElementMover(bytes, next->dtype), kWhat);
      !s.ok()) {
    return s;
  }
  next->items.push_back(ctx.input(1));
  ctx.set_output(0, Wrap(std::move(next)));
  return absl::OkStatus();
}

absl::Status Stack(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<PartialShape> requested = ShapeFromInput(ctx.input(1));
  if (!requested.ok()) return requested.status();
  absl::StatusOr<PartialShape> shape = Merge((*list)->element_shape, *requested);
  if (!shape.ok()) return shape.status();
  const DeviceBytes* mover = ElementMover(bytes, (*list)->dtype);
  for (const Tensor& item : (*list)->items) {
    if (!item.valid()) continue;
    if (absl::Status s = CheckWhere(item, mover, kWhat); !s.ok()) return s;
    absl::StatusOr<PartialShape> m = Merge(*shape, PartialShape::Known(item.shape()));
    if (!m.ok()) return m.status();
    shape = m;
  }
  if (!shape->IsFullyKnown()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot stack a TensorList of element shape ", shape->ToString()));
  }
  Shape out_shape = {static_cast<int64_t>((*list)->items.size())};
  out_shape.insert(out_shape.end(), shape->dims.begin(), shape->dims.end());
  absl::StatusOr<Tensor*> out = mover != nullptr
                                    ? ctx.allocate_device_output(0, (*list)->dtype, out_shape)
                                    : ctx.allocate_output(0, (*list)->dtype, out_shape);
  if (!out.ok()) return out.status();
  absl::StatusOr<int64_t> per = NumElements(shape->dims);
  if (!per.ok()) return per.status();
  const size_t elem_bytes = DataTypeSize((*list)->dtype);
  char* base = static_cast<char*>((*out)->raw_data());
  std::vector<ByteCopy> copies;
  for (size_t i = 0; i < (*list)->items.size(); ++i) {
    const Tensor& item = (*list)->items[i];
    if ((*list)->dtype == DataType::kString) {
      if (!item.valid()) continue;  // empty strings
      for (int64_t j = 0; j < *per; ++j) {
        (*out)->data<std::string>()[i * *per + j] = item.data<std::string>()[j];
      }
      continue;
    }
    const size_t n = static_cast<size_t>(*per) * elem_bytes;
    if (!item.valid()) {  // zeros: already so in a host output
      if (mover != nullptr && n > 0) {
        if (absl::Status s = mover->zero(base + i * n, n, ctx.device()->stream()); !s.ok()) {
          return s;
        }
      }
      continue;
    }
    copies.push_back({base + i * n, item.raw_data(), n});
  }
  return CopyAll(ctx, mover, copies);
}

// TensorListResize: the first `size` elements, or all of them and unset
// ones after (a read of one gives zeros of the element shape, as after
// TensorListReserve).
absl::Status Resize(KernelContext& ctx) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<std::vector<int64_t>> n = ToInt64s(ctx.input(1));
  if (!n.ok()) return n.status();
  if (n->size() != 1 || (*n)[0] < 0 || (*n)[0] > kMaxListLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorListResize expects size to be a scalar in [0, 2^28], got ",
        ctx.input(1).DebugString()));
  }
  auto next = std::make_shared<TensorList>(**list);
  next->items.resize((*n)[0]);
  ctx.set_output(0, Wrap(std::move(next)));
  return absl::OkStatus();
}

absl::Status Length(KernelContext& ctx) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, {});
  if (!out.ok()) return out.status();
  (*out)->data<int32_t>()[0] = static_cast<int32_t>((*list)->items.size());
  return absl::OkStatus();
}

absl::Status ElementShape(KernelContext& ctx) {
  absl::StatusOr<const TensorList*> list = ListOf(ctx.input(0));
  if (!list.ok()) return list.status();
  absl::StatusOr<DataType> type = ctx.attrs().GetOr<DataType>("shape_type", DataType::kInt32);
  if (!type.ok()) return type.status();
  const PartialShape& s = (*list)->element_shape;
  Shape out_shape = s.known_rank ? Shape{static_cast<int64_t>(s.dims.size())} : Shape{};
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *type, out_shape);
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < (*out)->num_elements(); ++i) {
    int64_t d = s.known_rank ? s.dims[i] : -1;
    if (*type == DataType::kInt32) {
      (*out)->data<int32_t>()[i] = static_cast<int32_t>(d);
    } else {
      (*out)->data<int64_t>()[i] = d;
    }
  }
  return absl::OkStatus();
}

absl::Status IdentityOfList(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& TensorListOps() {
  static const std::vector<std::string> ops = {
      "TensorListReserve", "EmptyTensorList",   "TensorListFromTensor",
      "TensorListGetItem", "TensorListSetItem", "TensorListPushBack",
      "TensorListStack",   "TensorListLength",  "TensorListElementShape",
      "TensorListResize"};
  return ops;
}

ComputeFn TensorListCompute(const std::string& op, const DeviceBytes* bytes) {
  if (op == "TensorListReserve") return Reserve;
  if (op == "EmptyTensorList") return Empty;
  if (op == "TensorListFromTensor") return WithBytes(FromTensor, bytes);
  if (op == "TensorListGetItem") return WithBytes(GetItem, bytes);
  if (op == "TensorListSetItem") return WithBytes(SetItem, bytes);
  if (op == "TensorListPushBack") return WithBytes(PushBack, bytes);
  if (op == "TensorListStack") return WithBytes(Stack, bytes);
  if (op == "TensorListLength") return Length;
  if (op == "TensorListResize") return Resize;
  if (op == "TensorListElementShape") return ElementShape;
  return nullptr;
}

std::vector<KernelSpec> DeviceTensorListKernels(const std::string& device, DeviceBytes bytes) {
  // The shapes, sizes and indices the kernels read on the host, and
  // ElementShape's output, whatever their integer type (an int64 shape_type
  // too), as TensorFlow's HostMemory.
  const std::map<std::string, std::vector<int>> host_inputs = {
      {"TensorListReserve", {0, 1}}, {"EmptyTensorList", {0, 1}},
      {"TensorListFromTensor", {1}}, {"TensorListGetItem", {1, 2}},
      {"TensorListSetItem", {1}},    {"TensorListStack", {1}},
      {"TensorListResize", {1}}};
  std::vector<KernelSpec> kernels;
  for (const std::string& op : TensorListOps()) {
    KernelSpec k =
        ElementKernel(op, device, TensorListCompute(op, &bytes), "tensor_list", {"element_dtype"});
    if (auto it = host_inputs.find(op); it != host_inputs.end()) k.host_memory_inputs = it->second;
    if (op == "TensorListElementShape") k.host_memory_outputs = {0};
    kernels.push_back(std::move(k));
  }
  KernelSpec identity = ElementKernel("Identity", device, IdentityOfList, "tensor_list", {});
  identity.type_attr = "T";
  identity.types = {DataType::kVariant};
  kernels.push_back(std::move(identity));
  return kernels;
}

}  // namespace smrt::kernels
