// String ops: case mapping, regular expressions, splitting and joining,
// StringStrip, StringLength, Substr, AsString, StringToNumber and
// StringToHashBucketFast (the kernels' file, kernels/cpu/reference/
// string_ops.cc, says how closely they follow TensorFlow's).
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/broadcast_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"
#include "ops/string_shapes.h"

namespace smrt::ops {
namespace {

absl::Status RequireRank(const PartialShape& s, int rank, absl::string_view what) {
  if (!s.known_rank || s.rank() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must have rank ", rank, ", got shape ", s.ToString()));
}

// Output 0: `dtype` with input 0's shape.
InferFn SameShapeAs(DataType dtype) {
  return [dtype](InferenceContext& ctx) -> absl::Status {
    ctx.set_output(0, ValueInfo{dtype, ctx.input(0).shape});
    return absl::OkStatus();
  };
}

absl::Status InferCase(InferenceContext& ctx) {
  absl::StatusOr<std::string> encoding = ctx.attrs().GetOr<std::string>("encoding", "");
  if (!encoding.ok()) return encoding.status();
  if (!encoding->empty() && *encoding != "utf-8") {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "only utf-8 or '' (no encoding) is supported, received ", *encoding)));
  }
  return SameShapeAs(DataType::kString)(ctx);
}

absl::Status InferStaticRegex(InferenceContext& ctx, DataType out) {
  absl::StatusOr<std::string> pattern = ctx.attrs().Get<std::string>("pattern");
  if (!pattern.ok()) return pattern.status();
  // TensorFlow compiles the pattern when it builds the kernel; compiling here
  // makes a model with a bad pattern fail at load.
  absl::StatusOr<std::unique_ptr<re2::RE2>> re = CompileRegex(*pattern);
  if (!re.ok()) return re.status();
  ctx.set_output(0, ValueInfo{out, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferRegexReplace(InferenceContext& ctx) {
  if (absl::Status s = RequireRank(ctx.input(1).shape, 0, "pattern"); !s.ok()) return s;
  if (absl::Status s = RequireRank(ctx.input(2).shape, 0, "rewrite"); !s.ok()) return s;
  return SameShapeAs(DataType::kString)(ctx);
}

absl::Status InferRegexFullMatch(InferenceContext& ctx) {
  if (absl::Status s = RequireRank(ctx.input(1).shape, 0, "pattern"); !s.ok()) return s;
  return SameShapeAs(DataType::kBool)(ctx);
}

absl::StatusOr<int> ThreeOutputs(const AttrMap&, int) { return 3; }

absl::Status InferSplit(InferenceContext& ctx) {
  if (absl::Status s = RequireRank(ctx.input(0).shape, 1, "input"); !s.ok()) return s;
  if (absl::Status s = RequireRank(ctx.input(1).shape, 0, "separator"); !s.ok()) return s;
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({-1, 2})});
  ctx.set_output(1, ValueInfo{DataType::kString, PartialShape::Known({-1})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({2})});
  return absl::OkStatus();
}

absl::Status InferStringJoin(InferenceContext& ctx) {
  bool all_scalar = true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape.rank() != 0) all_scalar = false;
  }
  if (all_scalar) {
    ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({})});
    return absl::OkStatus();
  }
  // Merge the non-scalar inputs of known rank (unknown ranks may be scalars).
  PartialShape out = PartialShape::Unknown();
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank || s.rank() == 0) continue;
    if (!out.known_rank) {
      out = s;
      continue;
    }
    if (out.rank() != s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "StringJoin: input shapes do not match: ", out.ToString(), " vs ", s.ToString()));
    }
    for (int d = 0; d < s.rank(); ++d) {
      if (out.dims[d] < 0) {
        out.dims[d] = s.dims[d];
      } else if (s.dims[d] >= 0 && s.dims[d] != out.dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "StringJoin: input shapes do not match: ", out.ToString(), " vs ", s.ToString()));
      }
    }
  }
  ctx.set_output(0, ValueInfo{DataType::kString, out});
  return absl::OkStatus();
}

absl::Status InferReduceJoin(InferenceContext& ctx) {
  absl::StatusOr<bool> keep = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep.ok()) return keep.status();
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> indices = ConstInts(ctx, 1);
  if (!in.known_rank) {
    ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  if (!indices) {
    if (*keep) {
      ctx.set_output(0,
                     ValueInfo{DataType::kString, PartialShape::Known(Shape(in.dims.size(), -1))});
    } else {
      ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Unknown()});
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<int>> dims = ReduceJoinDims(*indices, in.rank());
  if (!dims.ok()) return dims.status();
  Shape out;
  for (int d = 0; d < in.rank(); ++d) {
    bool reduced = std::find(dims->begin(), dims->end(), d) != dims->end();
    if (!reduced) {
      out.push_back(in.dims[d]);
    } else if (*keep) {
      out.push_back(1);
    }
  }
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known(out)});
  return absl::OkStatus();
}

absl::Status InferHashBucket(InferenceContext& ctx) {
  if (absl::StatusOr<int64_t> n = NumBuckets(ctx.attrs()); !n.ok()) return n.status();
  return SameShapeAs(DataType::kInt64)(ctx);
}

absl::Status InferSubstr(InferenceContext& ctx) {
  const PartialShape& pos = ctx.input(1).shape;
  const PartialShape& len = ctx.input(2).shape;
  if (pos.known_rank && len.known_rank) {
    bool same = pos.rank() == len.rank();
    for (int d = 0; same && d < pos.rank(); ++d) {
      same = pos.dims[d] < 0 || len.dims[d] < 0 || pos.dims[d] == len.dims[d];
    }
    if (!same) {
      return absl::InvalidArgumentError(
          absl::StrCat("pos and len shapes must match: ", pos.ToString(), " vs ", len.ToString()));
    }
  }
  absl::StatusOr<PartialShape> out = BroadcastPartialShapes({ctx.input(0).shape, pos});
  if (!out.ok()) return out.status();
  ctx.set_output(0, ValueInfo{DataType::kString, *out});
  return absl::OkStatus();
}

absl::Status InferAsString(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("T");
  if (!t.ok()) return t.status();
  absl::StatusOr<AsStringFormat> f = MakeAsStringFormat(ctx.attrs(), *t);
  if (!f.ok()) return f.status();
  return SameShapeAs(DataType::kString)(ctx);
}

absl::Status InferStringToNumber(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().GetOr<DataType>("out_type", DataType::kFloat);
  if (!t.ok()) return t.status();
  return SameShapeAs(*t)(ctx);
}

}  // namespace

void RegisterStringOps(OpRegistry& r) {
  r.AddOp({"StringLower", {{"encoding", std::string()}}, InferCase});
  r.AddOp({"DecodeBase64", {}, SameShapeAs(DataType::kString)});
  r.AddOp({"EncodeBase64", {{"pad", false}}, SameShapeAs(DataType::kString)});
  r.AddOp({"StringUpper", {{"encoding", std::string()}}, InferCase});
  r.AddOp({"StaticRegexReplace", {{"replace_global", true}}, [](InferenceContext& ctx) {
             return InferStaticRegex(ctx, DataType::kString);
           }});
  r.AddOp({"RegexReplace", {{"replace_global", true}}, InferRegexReplace});
  r.AddOp({"StaticRegexFullMatch", {}, [](InferenceContext& ctx) {
             return InferStaticRegex(ctx, DataType::kBool);
           }});
  r.AddOp({"RegexFullMatch", {}, InferRegexFullMatch});
  r.AddOp({"StringSplitV2", {{"maxsplit", int64_t{-1}}}, InferSplit, ThreeOutputs});
  r.AddOp({"StringSplit", {{"skip_empty", true}}, InferSplit, ThreeOutputs});
  r.AddOp({"StringJoin", {{"separator", std::string()}}, InferStringJoin});
  r.AddOp({"ReduceJoin", {{"keep_dims", false}, {"separator", std::string()}}, InferReduceJoin});
  r.AddOp({"StringToHashBucketFast", {}, InferHashBucket});
  r.AddOp({"StringStrip", {}, SameShapeAs(DataType::kString)});
  r.AddOp({"StringLength", {{"unit", std::string("BYTE")}}, SameShapeAs(DataType::kInt32)});
  r.AddOp({"Substr", {{"unit", std::string("BYTE")}}, InferSubstr});
  r.AddOp({"AsString",
           {{"precision", int64_t{-1}},
            {"scientific", false},
            {"shortest", false},
            {"width", int64_t{-1}},
            {"fill", std::string()}},
           InferAsString});
  r.AddOp({"StringToNumber", {{"out_type", DataType::kFloat}}, InferStringToNumber});
}

}  // namespace smrt::ops
