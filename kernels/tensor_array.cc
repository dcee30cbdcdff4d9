#include "kernels/tensor_array.h"

#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

constexpr int64_t kMaxArraySize = int64_t{1} << 28;
constexpr char kWhat[] = "TensorArray";

struct TensorArray {
  DataType dtype = DataType::kInvalid;
  PartialShape element_shape = PartialShape::Unknown();
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  bool closed = false;
  std::string name;
  struct Element {
    Tensor value;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };
  std::vector<Element> elements;

  std::string Where() const { return absl::StrCat("TensorArray ", name); }

  absl::Status Write(int64_t index, const Tensor& value) {
    if (closed) return absl::InvalidArgumentError(absl::StrCat(Where(), " has already been closed"));
    if (index < 0 || (!dynamic_size && index >= static_cast<int64_t>(elements.size())) ||
        index >= kMaxArraySize) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": tried to write to index ", index,
                       " but array is not resizeable and size is: ", elements.size()));
    }
    if (index >= static_cast<int64_t>(elements.size())) elements.resize(index + 1);
    if (value.dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": could not write to index ", index, " because the value dtype is ",
          DataTypeName(value.dtype()), " but the TensorArray dtype is ", DataTypeName(dtype)));
    }
    if (!element_shape.IsCompatibleWith(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": could not write to index ", index, " because the value shape is ",
          ShapeToString(value.shape()), ", incompatible with the element shape ",
          element_shape.ToString()));
    }
    Element& e = elements[index];
    if (e.read) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": could not write to index ", index, " because it has already been read"));
    }
    if (e.written) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": could not write to index ", index,
          " because it has already been written to"));
    }
    if (identical_element_shapes) element_shape = PartialShape::Known(value.shape());
    e.value = value;
    e.written = true;
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Read(int64_t index) {
    if (closed) return absl::InvalidArgumentError(absl::StrCat(Where(), " has already been closed"));
    if (index < 0 || index >= static_cast<int64_t>(elements.size())) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": tried to read from index ", index,
                                                     " but array size is: ", elements.size()));
    }
    Element& e = elements[index];
    if (!e.written) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": could not read from index ", index, " because it has not yet been written to"));
    }
    if (e.cleared) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": could not read index ", index,
                       " twice because it was cleared after a previous read (perhaps try setting "
                       "clear_after_read = false?)"));
    }
    Tensor value = e.value;
    if (clear_after_read) {
      e.value = Tensor();
      e.cleared = true;
    }
    e.read = true;
    return value;
  }
};

absl::StatusOr<TensorArray*> ArrayOf(const KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DataType::kVariant || t.variant_object() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("expected a TensorArray handle, got a ",
                                                   DataTypeName(t.dtype()), " tensor"));
  }
  return static_cast<TensorArray*>(t.variant_object());
}

absl::StatusOr<int64_t> ScalarIndex(const Tensor& t, const char* what) {
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(t);
  if (!v.ok()) return v.status();
  if (t.rank() != 0) return absl::InvalidArgumentError(absl::StrCat(what, " must be a scalar"));
  return (*v)[0];
}

// The flow output, which only orders the ops on an array: on a device, the
// flow input (`flow_input`, -1 for none) passed on, or a zero made there.
absl::Status SetFlow(KernelContext& ctx, int output, const DeviceBytes* bytes,
                     int flow_input = -1) {
  if (bytes == nullptr) return ctx.allocate_output(output, DataType::kFloat, {}).status();
  if (flow_input >= 0 && ctx.input(flow_input).on_device()) {
    ctx.set_output(output, ctx.input(flow_input));
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor> flow = NewElement(ctx, bytes, DataType::kFloat, {}, /*zero=*/true);
  if (!flow.ok()) return flow.status();
  ctx.set_output(output, *std::move(flow));
  return absl::OkStatus();
}

// Copies `n` elements of `from` starting at element `from_offset` into `to`
// at element `to_offset` (same dtype).
void CopyElements(const Tensor& from, int64_t from_offset, Tensor& to, int64_t to_offset,
                  int64_t n) {
  if (n <= 0) return;
  if (from.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      to.data<std::string>()[to_offset + i] = from.data<std::string>()[from_offset + i];
    }
    return;
  }
  const size_t size = DataTypeSize(from.dtype());
  std::memcpy(static_cast<char*>(to.raw_data()) + to_offset * size,
              static_cast<const char*>(from.raw_data()) + from_offset * size, n * size);
}

absl::Status Create(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<int64_t> size = ScalarIndex(ctx.input(0), "size");
  if (!size.ok()) return size.status();
  if (*size < 0 || *size > kMaxArraySize) {
    return absl::InvalidArgumentError(absl::StrCat("TensorArray size ", *size,
                                                   " is out of range [0, 2^28]"));
  }
  auto ta = std::make_shared<TensorArray>();
  const AttrMap& a = ctx.attrs();
  absl::StatusOr<DataType> dtype = a.Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  ta->dtype = *dtype;
  absl::StatusOr<PartialShape> shape = a.GetOr<PartialShape>("element_shape", PartialShape::Unknown());
  absl::StatusOr<bool> dynamic = a.GetOr<bool>("dynamic_size", false);
  absl::StatusOr<bool> clear = a.GetOr<bool>("clear_after_read", true);
  absl::StatusOr<bool> identical = a.GetOr<bool>("identical_element_shapes", false);
  absl::StatusOr<std::string> name = a.GetOr<std::string>("tensor_array_name", "");
  for (const absl::Status& s : {shape.status(), dynamic.status(), clear.status(),
                                identical.status(), name.status()}) {
    if (!s.ok()) return s;
  }
  ta->element_shape = *shape;
  ta->dynamic_size = *dynamic;
  ta->clear_after_read = *clear;
  ta->identical_element_shapes = *identical;
  ta->name = name->empty() ? std::string(ctx.node_name()) : *name;
  ta->elements.resize(*size);
  ctx.set_output(0, Tensor::Variant(std::move(ta)));
  return SetFlow(ctx, 1, bytes);
}

absl::Status Write(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  absl::StatusOr<int64_t> index = ScalarIndex(ctx.input(1), "index");
  if (!index.ok()) return index.status();
  if (absl::Status s = CheckWhere(ctx.input(2), ElementMover(bytes, (*ta)->dtype), kWhat);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = (*ta)->Write(*index, ctx.input(2)); !s.ok()) return s;
  return SetFlow(ctx, 0, bytes, 3);
}

absl::Status Read(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  absl::StatusOr<int64_t> index = ScalarIndex(ctx.input(1), "index");
  if (!index.ok()) return index.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  if (*dtype != (*ta)->dtype) {
    return absl::InvalidArgumentError(absl::StrCat((*ta)->Where(), " holds ",
                                                   DataTypeName((*ta)->dtype), ", not ",
                                                   DataTypeName(*dtype)));
  }
  absl::StatusOr<Tensor> value = (*ta)->Read(*index);
  if (!value.ok()) return value.status();
  if (absl::Status s = CheckWhere(*value, ElementMover(bytes, (*ta)->dtype), kWhat); !s.ok()) {
    return s;
  }
  ctx.set_output(0, *std::move(value));
  return absl::OkStatus();
}

// Stacks elements (all of one shape) into [n] + element shape.
absl::StatusOr<Tensor> Stack(KernelContext& ctx, const DeviceBytes* bytes, TensorArray& ta,
                             const std::vector<int64_t>& indices, const PartialShape& requested) {
  const DeviceBytes* mover = ElementMover(bytes, ta.dtype);
  std::vector<Tensor> values;
  for (int64_t i : indices) {
    absl::StatusOr<Tensor> v = ta.Read(i);
    if (!v.ok()) return v.status();
    if (absl::Status s = CheckWhere(*v, mover, kWhat); !s.ok()) return s;
    values.push_back(*std::move(v));
  }
  Shape element;
  if (values.empty()) {
    PartialShape s = requested.known_rank ? requested : ta.element_shape;
    if (!s.IsFullyKnown()) {
      return absl::InvalidArgumentError(absl::StrCat(
          ta.Where(), ": cannot gather no elements with an element shape that is not fully known (",
          s.ToString(), ")"));
    }
    element = s.dims;
  } else {
    element = values[0].shape();
    for (size_t i = 1; i < values.size(); ++i) {
      if (values[i].shape() != element) {
        return absl::InvalidArgumentError(absl::StrCat(
            ta.Where(), " has inconsistent shapes: index ", indices[0], " has shape ",
            ShapeToString(element), " but index ", indices[i], " has shape ",
            ShapeToString(values[i].shape())));
      }
    }
  }
  Shape out_shape = {static_cast<int64_t>(indices.size())};
  out_shape.insert(out_shape.end(), element.begin(), element.end());
  absl::StatusOr<Tensor> out = NewElement(ctx, mover, ta.dtype, out_shape, /*zero=*/false);
  if (!out.ok()) return out.status();
  std::vector<ByteCopy> copies;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t per = values[i].num_elements();
    if (mover == nullptr) {
      CopyElements(values[i], 0, *out, static_cast<int64_t>(i) * per, per);
      continue;
    }
    const size_t n = static_cast<size_t>(per) * DataTypeSize(ta.dtype);
    copies.push_back({static_cast<char*>(out->raw_data()) + i * n, values[i].raw_data(), n});
  }
  if (absl::Status s = CopyAll(ctx, mover, copies); !s.ok()) return s;
  return out;
}

absl::Status Gather(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  if (ctx.input(1).rank() != 1) return absl::InvalidArgumentError("indices must be a vector");
  absl::StatusOr<std::vector<int64_t>> indices = ToInt64s(ctx.input(1));
  if (!indices.ok()) return indices.status();
  absl::StatusOr<PartialShape> requested =
      ctx.attrs().GetOr<PartialShape>("element_shape", PartialShape::Unknown());
  if (!requested.ok()) return requested.status();
  absl::StatusOr<Tensor> out = Stack(ctx, bytes, **ta, *indices, *requested);
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

absl::Status Scatter(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  const Tensor& value = ctx.input(2);
  if (ctx.input(1).rank() != 1) return absl::InvalidArgumentError("indices must be a vector");
  absl::StatusOr<std::vector<int64_t>> indices = ToInt64s(ctx.input(1));
  if (!indices.ok()) return indices.status();
  if (value.rank() < 1 || value.dim(0) != static_cast<int64_t>(indices->size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected value of shape [", indices->size(), ", ...] to scatter, got ",
        ShapeToString(value.shape())));
  }
  const DeviceBytes* mover = ElementMover(bytes, value.dtype());
  if (absl::Status s = CheckWhere(value, mover, kWhat); !s.ok()) return s;
  std::vector<Tensor> rows;
  if (IsFixedSize(value.dtype())) {
    absl::StatusOr<std::vector<Tensor>> split = SplitRows(ctx, mover, value);
    if (!split.ok()) return split.status();
    rows = *std::move(split);
  } else {
    Shape element(value.shape().begin() + 1, value.shape().end());
    const int64_t per = indices->empty() ? 0 : value.num_elements() / value.dim(0);
    for (size_t i = 0; i < indices->size(); ++i) {
      absl::StatusOr<Tensor> item = Tensor::Create(value.dtype(), element);
      if (!item.ok()) return item.status();
      CopyElements(value, static_cast<int64_t>(i) * per, *item, 0, per);
      rows.push_back(*std::move(item));
    }
  }
  for (size_t i = 0; i < indices->size(); ++i) {
    if (absl::Status s = (*ta)->Write((*indices)[i], rows[i]); !s.ok()) return s;
  }
  return SetFlow(ctx, 0, bytes, 3);
}

// The elements 0..n-1 joined along their first dims (which may differ),
// and those dims as host int64 `lengths`.
absl::Status Concat(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  const DeviceBytes* mover = ElementMover(bytes, (*ta)->dtype);
  std::vector<Tensor> values;
  for (size_t i = 0; i < (*ta)->elements.size(); ++i) {
    absl::StatusOr<Tensor> v = (*ta)->Read(static_cast<int64_t>(i));
    if (!v.ok()) return v.status();
    if (absl::Status s = CheckWhere(*v, mover, kWhat); !s.ok()) return s;
    if (v->rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat((*ta)->Where(), ": cannot concat element ", i,
                                                     ", a scalar"));
    }
    values.push_back(*std::move(v));
  }
  Shape rest;
  if (values.empty()) {
    absl::StatusOr<PartialShape> except0 =
        ctx.attrs().GetOr<PartialShape>("element_shape_except0", PartialShape::Unknown());
    if (!except0.ok()) return except0.status();
    if (!except0->IsFullyKnown()) {
      return absl::InvalidArgumentError(absl::StrCat(
          (*ta)->Where(), ": cannot concat no elements with element_shape_except0 ",
          except0->ToString()));
    }
    rest = except0->dims;
  } else {
    rest.assign(values[0].shape().begin() + 1, values[0].shape().end());
  }
  int64_t total = 0;
  absl::StatusOr<Tensor*> lengths =
      ctx.allocate_output(1, DataType::kInt64, {static_cast<int64_t>(values.size())});
  if (!lengths.ok()) return lengths.status();
  for (size_t i = 0; i < values.size(); ++i) {
    Shape r(values[i].shape().begin() + 1, values[i].shape().end());
    if (r != rest) {
      return absl::InvalidArgumentError(absl::StrCat(
          (*ta)->Where(), ": cannot concat elements of shapes ", ShapeToString(values[0].shape()),
          " and ", ShapeToString(values[i].shape())));
    }
    (*lengths)->data<int64_t>()[i] = values[i].dim(0);
    total += values[i].dim(0);
  }
  Shape out_shape = {total};
  out_shape.insert(out_shape.end(), rest.begin(), rest.end());
  absl::StatusOr<Tensor> out = NewElement(ctx, mover, (*ta)->dtype, out_shape, /*zero=*/false);
  if (!out.ok()) return out.status();
  std::vector<ByteCopy> copies;
  int64_t offset = 0;
  for (const Tensor& v : values) {
    if (mover == nullptr) {
      CopyElements(v, 0, *out, offset, v.num_elements());
    } else {
      const size_t size = DataTypeSize(v.dtype());
      copies.push_back({static_cast<char*>(out->raw_data()) + offset * size, v.raw_data(),
                        static_cast<size_t>(v.num_elements()) * size});
    }
    offset += v.num_elements();
  }
  if (absl::Status s = CopyAll(ctx, mover, copies); !s.ok()) return s;
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// `value` cut along its first dim into pieces of the host int64 `lengths`,
// written as elements 0..n-1. On a device, one copy of the value holds the
// pieces (views into it, as SplitRows's rows).
absl::Status Split(KernelContext& ctx, const DeviceBytes* bytes) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  const Tensor& value = ctx.input(1);
  absl::StatusOr<std::vector<int64_t>> lengths = ToInt64s(ctx.input(2));
  if (!lengths.ok()) return lengths.status();
  if (value.rank() < 1) return absl::InvalidArgumentError("cannot split a scalar");
  int64_t total = 0;
  for (int64_t l : *lengths) {
    if (l < 0) return absl::InvalidArgumentError(absl::StrCat("negative split length ", l));
    total += l;
  }
  if (total != value.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat("split lengths sum to ", total,
                                                   " but the value's first dim is ", value.dim(0)));
  }
  if (!(*ta)->dynamic_size && lengths->size() != (*ta)->elements.size()) {
    return absl::InvalidArgumentError(absl::StrCat((*ta)->Where(), " has size ",
                                                   (*ta)->elements.size(), " but split into ",
                                                   lengths->size(), " pieces"));
  }
  const DeviceBytes* mover = ElementMover(bytes, value.dtype());
  if (absl::Status s = CheckWhere(value, mover, kWhat); !s.ok()) return s;
  const int64_t per_row = value.dim(0) == 0 ? 0 : value.num_elements() / value.dim(0);
  std::shared_ptr<Tensor> whole;
  if (mover != nullptr) {
    absl::StatusOr<Tensor> copy =
        NewElement(ctx, mover, value.dtype(), value.shape(), /*zero=*/false);
    if (!copy.ok()) return copy.status();
    if (absl::Status s =
            CopyBytes(ctx, mover, copy->raw_data(), value.raw_data(), value.byte_size());
        !s.ok()) {
      return s;
    }
    whole = std::make_shared<Tensor>(*std::move(copy));
  }
  const size_t row_bytes = static_cast<size_t>(per_row) * DataTypeSize(value.dtype());
  int64_t row = 0;
  for (size_t i = 0; i < lengths->size(); ++i) {
    Shape shape = value.shape();
    shape[0] = (*lengths)[i];
    absl::StatusOr<Tensor> item;
    if (whole == nullptr) {
      item = Tensor::Create(value.dtype(), shape);
      if (item.ok()) CopyElements(value, row * per_row, *item, 0, (*lengths)[i] * per_row);
    } else {
      item = Tensor::DeviceStorage(
          value.dtype(), shape,
          std::shared_ptr<void>(whole, static_cast<char*>(whole->raw_data()) + row * row_bytes));
    }
    if (!item.ok()) return item.status();
    row += (*lengths)[i];
    if (absl::Status s = (*ta)->Write(static_cast<int64_t>(i), *item); !s.ok()) return s;
  }
  return SetFlow(ctx, 0, bytes, 3);
}

absl::Status Size(KernelContext& ctx) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, {});
  if (!out.ok()) return out.status();
  (*out)->data<int32_t>()[0] = static_cast<int32_t>((*ta)->elements.size());
  return absl::OkStatus();
}

absl::Status Close(KernelContext& ctx) {
  absl::StatusOr<TensorArray*> ta = ArrayOf(ctx);
  if (!ta.ok()) return ta.status();
  (*ta)->closed = true;
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& TensorArrayOps() {
  static const std::vector<std::string> ops = {
      "TensorArrayV3",       "TensorArrayWriteV3",  "TensorArrayReadV3",  "TensorArrayGatherV3",
      "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3", "TensorArraySizeV3",
      "TensorArrayCloseV3"};
  return ops;
}

ComputeFn TensorArrayCompute(const std::string& op, const DeviceBytes* bytes) {
  if (op == "TensorArrayV3") return WithBytes(Create, bytes);
  if (op == "TensorArrayWriteV3") return WithBytes(Write, bytes);
  if (op == "TensorArrayReadV3") return WithBytes(Read, bytes);
  if (op == "TensorArrayGatherV3") return WithBytes(Gather, bytes);
  if (op == "TensorArrayScatterV3") return WithBytes(Scatter, bytes);
  if (op == "TensorArraySizeV3") return Size;
  if (op == "TensorArrayCloseV3") return Close;
  if (op == "TensorArrayConcatV3") return WithBytes(Concat, bytes);
  if (op == "TensorArraySplitV3") return WithBytes(Split, bytes);
  return nullptr;
}

std::vector<KernelSpec> DeviceTensorArrayKernels(const std::string& device, DeviceBytes bytes) {
  std::vector<KernelSpec> kernels;
  for (const std::string& op : TensorArrayOps()) {
    ComputeFn compute = TensorArrayCompute(op, &bytes);
    if (compute == nullptr) continue;
    KernelSpec k = ElementKernel(op, device, std::move(compute), "tensor_array", {"dtype", "T"});
    // Their int64 lengths are host values, as TensorFlow's HostMemory.
    if (op == "TensorArrayConcatV3") k.host_memory_outputs = {1};
    if (op == "TensorArraySplitV3") k.host_memory_inputs = {2};
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace smrt::kernels
