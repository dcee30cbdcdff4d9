#include "graph/shape_values.h"

#include <cstdint>
#include <set>
#include <string>

namespace smrt::graph {
namespace {

bool IsIndexType(DataType t) { return t == DataType::kInt32 || t == DataType::kInt64; }

// Ops that only rearrange or combine small integer values: safe and cheap to
// run while inferring. Anything stateful, random or large stays out.
bool ComputesShapeValues(const std::string& op) {
  static const std::set<std::string> kOps = {
      "StridedSlice", "Slice",   "Pack",     "ConcatV2",     "Concat",     "Cast",
      "Identity",     "Squeeze", "ExpandDims", "Reshape",    "GatherV2",   "Gather",
      "Prod",         "Sum",     "Mul",      "AddV2",        "Add",        "Sub",
      "FloorDiv",     "Maximum", "Minimum",  "Neg",          "BroadcastArgs", "Range",
      "Fill",         "Tile",    "Unpack"};
  return kOps.count(op) > 0;
}

// A tensor of `dtype` (int32 or int64) holding `v`, shaped [v.size()] or scalar.
std::optional<Tensor> IntTensor(DataType dtype, const std::vector<int64_t>& v, bool scalar) {
  absl::StatusOr<Tensor> t =
      Tensor::Create(dtype, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  if (!t.ok()) return std::nullopt;
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DataType::kInt32) {
      if (v[i] > INT32_MAX) return std::nullopt;
      t->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    } else {
      t->data<int64_t>()[i] = v[i];
    }
  }
  return *std::move(t);
}

// Shape, ShapeN, Size, Rank: from the inputs' shapes alone.
std::optional<std::vector<Tensor>> FromShapes(const Node& n,
                                              const std::vector<ops::ValueInfo>& inputs) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const DataType dtype = n.outputs[i].dtype;
    if (!IsIndexType(dtype)) return std::nullopt;
    const size_t which = n.op == "ShapeN" ? i : 0;
    if (which >= inputs.size()) return std::nullopt;
    const PartialShape& s = inputs[which].shape;
    std::optional<Tensor> t;
    if (n.op == "Rank") {
      if (!s.known_rank) return std::nullopt;
      t = IntTensor(dtype, {s.rank()}, true);
    } else {
      if (!s.IsFullyKnown()) return std::nullopt;
      const std::vector<int64_t> dims(s.dims.begin(), s.dims.end());
      if (n.op == "Size") {
        int64_t size = 1;
        for (int64_t d : dims) size *= d;
        t = IntTensor(dtype, {size}, true);
      } else {
        t = IntTensor(dtype, dims, false);
      }
    }
    if (!t) return std::nullopt;
    out.push_back(*std::move(t));
  }
  return out;
}

}  // namespace

std::optional<std::vector<Tensor>> KnownOutputValues(const Node& n,
                                                     const std::vector<ops::ValueInfo>& inputs,
                                                     const std::vector<const Tensor*>& values,
                                                     const ops::KernelCatalog& kernels) {
  if (n.outputs.empty()) return std::nullopt;
  for (const ops::ValueInfo& o : n.outputs) {
    if (!IsIndexType(o.dtype) || !o.shape.IsFullyKnown()) return std::nullopt;
    int64_t elements = 1;
    for (int64_t d : o.shape.dims) {
      elements *= d;
      if (elements > kMaxShapeValueElements) return std::nullopt;
    }
  }
  if (n.op == "Shape" || n.op == "ShapeN" || n.op == "Size" || n.op == "Rank") {
    return FromShapes(n, inputs);
  }
  if (!ComputesShapeValues(n.op) || n.inputs.empty()) return std::nullopt;
  std::vector<Tensor> args;
  for (const Tensor* v : values) {
    if (v == nullptr) return std::nullopt;
    if (v->num_elements() > kMaxShapeValueElements) return std::nullopt;
    args.push_back(*v);
  }
  // A kernel that fails here fails when the graph runs, in its own words.
  absl::StatusOr<std::vector<Tensor>> out =
      kernels.RunOnCpu(n.name, n.op, n.attrs, std::move(args), static_cast<int>(n.outputs.size()));
  if (!out.ok()) return std::nullopt;
  for (size_t i = 0; i < out->size(); ++i) {
    const Tensor& t = (*out)[i];
    if (!t.valid() || t.dtype() != n.outputs[i].dtype) return std::nullopt;
  }
  return *std::move(out);
}

}  // namespace smrt::graph
