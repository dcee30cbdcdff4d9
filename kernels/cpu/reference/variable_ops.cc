// Variables: TF1 reference variables (VariableV2, Assign*) and TF2 resource
// variables (VarHandleOp, ReadVariableOp, Assign*VariableOp). Values are
// replaced, never updated in place, so a reader holding the old tensor is
// never torn by a concurrent writer.
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::StatusOr<VariableResource*> Variable(Resource* r, absl::string_view node) {
  auto* v = dynamic_cast<VariableResource*>(r);
  if (v == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("node '", node, "' is not connected to a variable"));
  }
  return v;
}

absl::Status Uninitialized(absl::string_view node) {
  return absl::FailedPreconditionError(absl::StrCat(
      "variable read by '", node,
      "' is uninitialized: it is not in the checkpoint and no init op assigned it"));
}

absl::Status ComputeVariableV2(KernelContext& ctx) {
  absl::StatusOr<VariableResource*> v = Variable(ctx.node_resource(), ctx.node_name());
  if (!v.ok()) return v.status();
  // An uninitialized variable yields an empty tensor: Assign may still take
  // it by reference; the executor refuses it to every other consumer.
  ctx.set_output(0, (*v)->Read());
  return absl::OkStatus();
}

absl::Status ComputeVarHandle(KernelContext& ctx) {
  if (ctx.node_resource() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("resource variable '", ctx.node_name(), "' was not bound to a value"));
  }
  ctx.set_output(0, Tensor());  // the handle itself carries no data here
  return absl::OkStatus();
}

absl::Status ComputeRead(KernelContext& ctx) {
  absl::StatusOr<VariableResource*> v = Variable(ctx.resource(0), ctx.node_name());
  if (!v.ok()) return v.status();
  Tensor t = (*v)->Read();
  if (!t.valid()) return Uninitialized(ctx.node_name());
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  if (t.dtype() != *dtype) {
    return absl::InvalidArgumentError(absl::StrCat("variable holds ", DataTypeName(t.dtype()),
                                                   ", read as ", DataTypeName(*dtype)));
  }
  ctx.set_output(0, std::move(t));
  return absl::OkStatus();
}

enum class Update { kAssign, kAdd, kSub };

template <typename T>
void Combine(const Tensor& a, const Tensor& b, Tensor& out, Update u) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out.data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    z[i] = u == Update::kAdd ? static_cast<T>(x[i] + y[i]) : static_cast<T>(x[i] - y[i]);
  }
}

// The new value of a variable after `u` with `value`.
absl::StatusOr<Tensor> Updated(const Tensor& old, const Tensor& value, Update u,
                               bool validate_shape) {
  if (u == Update::kAssign) {
    if (validate_shape && old.valid() && old.shape() != value.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a value of shape ", ShapeToString(value.shape()),
          " to a variable of shape ", ShapeToString(old.shape())));
    }
    return value;  // shared; never mutated in place
  }
  if (!old.valid()) return absl::FailedPreconditionError("cannot update an uninitialized variable");
  if (old.dtype() != value.dtype() || old.shape() != value.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "update of a ", old.DebugString(), " variable with a ", value.DebugString(), " value"));
  }
  absl::StatusOr<Tensor> out = Tensor::Create(old.dtype(), old.shape());
  if (!out.ok()) return out.status();
  switch (old.dtype()) {
    case DataType::kFloat: Combine<float>(old, value, *out, u); break;
    case DataType::kDouble: Combine<double>(old, value, *out, u); break;
    case DataType::kInt32: Combine<int32_t>(old, value, *out, u); break;
    case DataType::kInt64: Combine<int64_t>(old, value, *out, u); break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("variable update for ", DataTypeName(old.dtype())));
  }
  return out;
}

// Assign/AssignAdd/AssignSub on a reference variable (input 0).
ComputeFn RefUpdate(Update u) {
  return [u](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<VariableResource*> v = Variable(ctx.resource(0), ctx.node_name());
    if (!v.ok()) return v.status();
    absl::StatusOr<bool> validate = ctx.attrs().GetOr<bool>("validate_shape", true);
    if (!validate.ok()) return validate.status();
    std::lock_guard<std::mutex> lock((*v)->mutex());
    absl::StatusOr<Tensor> next = Updated((*v)->value_locked(), ctx.input(1), u, *validate);
    if (!next.ok()) return next.status();
    (*v)->value_locked() = *next;
    ctx.set_output(0, *next);
    return absl::OkStatus();
  };
}

// Assign*VariableOp on a resource variable (input 0); no outputs.
ComputeFn ResourceUpdate(Update u) {
  return [u](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<VariableResource*> v = Variable(ctx.resource(0), ctx.node_name());
    if (!v.ok()) return v.status();
    std::lock_guard<std::mutex> lock((*v)->mutex());
    absl::StatusOr<Tensor> next = Updated((*v)->value_locked(), ctx.input(1), u, false);
    if (!next.ok()) return next.status();
    (*v)->value_locked() = *next;
    return absl::OkStatus();
  };
}

// ResourceGather: rows of a resource variable (embedding lookups).
absl::Status ComputeResourceGather(KernelContext& ctx) {
  absl::StatusOr<VariableResource*> v = Variable(ctx.resource(0), ctx.node_name());
  if (!v.ok()) return v.status();
  absl::StatusOr<int64_t> batch_dims = ctx.attrs().GetOr<int64_t>("batch_dims", 0);
  if (!batch_dims.ok()) return batch_dims.status();
  if (*batch_dims != 0) {
    return absl::UnimplementedError("ResourceGather with batch_dims != 0");
  }
  Tensor params = (*v)->Read();
  if (!params.valid()) return Uninitialized(ctx.node_name());
  if (params.rank() < 1 || !IsFixedSize(params.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot gather rows of a ", params.DebugString(), " variable"));
  }
  absl::StatusOr<std::vector<int64_t>> indices = ToInt64s(ctx.input(1));
  if (!indices.ok()) return indices.status();
  Shape out_shape = ctx.input(1).shape();
  out_shape.insert(out_shape.end(), params.shape().begin() + 1, params.shape().end());
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, params.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t rows = params.dim(0);
  const size_t row_bytes = rows == 0 ? 0 : params.byte_size() / rows;
  for (size_t i = 0; i < indices->size(); ++i) {
    int64_t r = (*indices)[i];
    if (r < 0 || r >= rows) {
      return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = ", r,
                                                     " is not in [0, ", rows, ")"));
    }
    std::memcpy(static_cast<char*>((*out)->raw_data()) + i * row_bytes,
                static_cast<const char*>(params.raw_data()) + r * row_bytes, row_bytes);
  }
  return absl::OkStatus();
}

const std::vector<DataType> kUpdateTypes = {DataType::kFloat, DataType::kDouble, DataType::kInt32,
                                            DataType::kInt64};

}  // namespace

void RegisterVariableOps(KernelRegistry& r) {
  r.AddKernel({"VariableV2", kCpu, "", {}, ComputeVariableV2});
  r.AddKernel({"VarHandleOp", kCpu, "", {}, ComputeVarHandle});
  r.AddKernel({"ReadVariableOp", kCpu, "", {}, ComputeRead});

  r.AddKernel({"ResourceGather", kCpu, "", {}, ComputeResourceGather});

  r.AddKernel({"Assign", kCpu, "", {}, RefUpdate(Update::kAssign)});
  r.AddKernel({"AssignAdd", kCpu, "T", kUpdateTypes, RefUpdate(Update::kAdd)});
  r.AddKernel({"AssignSub", kCpu, "T", kUpdateTypes, RefUpdate(Update::kSub)});

  r.AddKernel({"AssignVariableOp", kCpu, "", {}, ResourceUpdate(Update::kAssign)});
  r.AddKernel({"AssignAddVariableOp", kCpu, "dtype", kUpdateTypes, ResourceUpdate(Update::kAdd)});
  r.AddKernel({"AssignSubVariableOp", kCpu, "dtype", kUpdateTypes, ResourceUpdate(Update::kSub)});
}

}  // namespace smrt::kernels
