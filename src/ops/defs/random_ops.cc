// Random ops. Stateful (RandomUniform, RandomStandardNormal,
// TruncatedNormal, RandomUniformInt, Multinomial, RandomShuffle): each node
// owns a RandomStreamState (ops/random_state.h). Stateless (Stateless*,
// StatelessRandomGetKeyCounter...): the seed or key/counter inputs decide
// the numbers.
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/random_state.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

absl::StatusOr<std::unique_ptr<RandomStreamState>> MakeRandomStreamState(const AttrMap& attrs) {
  absl::StatusOr<int64_t> seed = attrs.GetOr<int64_t>("seed", 0);
  if (!seed.ok()) return seed.status();
  absl::StatusOr<int64_t> seed2 = attrs.GetOr<int64_t>("seed2", 0);
  if (!seed2.ok()) return seed2.status();
  uint64_t s = static_cast<uint64_t>(*seed), s2 = static_cast<uint64_t>(*seed2);
  if (s == 0 && s2 == 0) {
    // TensorFlow draws both from its nondeterministic source.
    std::random_device rd;
    s = static_cast<uint64_t>(rd()) << 32 | rd();
    s2 = static_cast<uint64_t>(rd()) << 32 | rd();
  }
  return std::make_unique<RandomStreamState>(s, s2);
}

namespace {

// Ops whose input 0 is the output shape; the dtype comes from attr
// `dtype_attr`.
absl::Status InferFromShapeInput(InferenceContext& ctx, const char* dtype_attr) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>(dtype_attr);
  if (!dtype.ok()) return dtype.status();
  std::optional<std::vector<int64_t>> dims = ConstInts(ctx, 0);
  PartialShape shape = PartialShape::Unknown();
  if (dims) {
    shape = PartialShape::Known(*dims);
  } else if (ctx.input(0).shape.rank() == 1 && ctx.input(0).shape.dims[0] >= 0) {
    shape = PartialShape::Known(Shape(static_cast<size_t>(ctx.input(0).shape.dims[0]), -1));
  }
  ctx.set_output(0, ValueInfo{*dtype, shape});
  return absl::OkStatus();
}

// Multinomial and StatelessMultinomial: [rows, num_samples].
absl::Status InferMultinomial(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("output_dtype", DataType::kInt64);
  if (!dtype.ok()) return dtype.status();
  const PartialShape& logits = ctx.input(0).shape;
  if (logits.known_rank && logits.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("logits should be a matrix, got shape ", logits.ToString()));
  }
  int64_t rows = logits.known_rank ? logits.dims[0] : -1;
  int64_t samples = -1;
  if (std::optional<std::vector<int64_t>> n = ConstInts(ctx, 1); n && n->size() == 1) {
    samples = (*n)[0];
  }
  ctx.set_output(0, ValueInfo{*dtype, PartialShape::Known({rows, samples})});
  return absl::OkStatus();
}

absl::Status InferShuffle(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Resource>> MakeResource(const AttrMap& attrs) {
  absl::StatusOr<std::unique_ptr<RandomStreamState>> s = MakeRandomStreamState(attrs);
  if (!s.ok()) return s.status();
  return std::unique_ptr<Resource>(*std::move(s));
}

OpSpec StatefulOp(const char* op, InferFn infer,
                  std::vector<std::pair<std::string, AttrValue>> extra_defaults = {}) {
  OpSpec spec{op, {{"seed", int64_t{0}}, {"seed2", int64_t{0}}}, std::move(infer), nullptr, true};
  for (auto& d : extra_defaults) spec.attr_defaults.push_back(std::move(d));
  spec.make_resource = MakeResource;
  return spec;
}

absl::Status InferKeyCounter(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kUInt64, PartialShape::Known({1})});
  ctx.set_output(1, ValueInfo{DataType::kUInt64, PartialShape::Known({2})});
  if (ctx.num_outputs() == 3) {
    ctx.set_output(2, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  }
  return absl::OkStatus();
}

absl::Status InferAlg(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  return absl::OkStatus();
}

NumOutputsFn Fixed(int n) {
  return [n](const AttrMap&, int) -> absl::StatusOr<int> { return n; };
}

}  // namespace

void RegisterRandomOps(OpRegistry& r) {
  auto infer_dtype = [](InferenceContext& ctx) { return InferFromShapeInput(ctx, "dtype"); };
  r.AddOp(StatefulOp("RandomUniform", infer_dtype));
  r.AddOp(StatefulOp("RandomStandardNormal", infer_dtype));
  r.AddOp(StatefulOp("TruncatedNormal", infer_dtype));
  r.AddOp(StatefulOp("RandomUniformInt",
                     [](InferenceContext& ctx) { return InferFromShapeInput(ctx, "Tout"); }));
  r.AddOp(StatefulOp("Multinomial", InferMultinomial, {{"output_dtype", DataType::kInt64}}));
  r.AddOp(StatefulOp("RandomShuffle", InferShuffle));
}

void RegisterStatelessRandomOps(OpRegistry& r) {
  auto infer = [](InferenceContext& ctx) { return InferFromShapeInput(ctx, "dtype"); };
  auto op = [&](const char* name, std::vector<std::pair<std::string, AttrValue>> defaults) {
    r.AddOp({name, std::move(defaults), infer});
  };
  const std::pair<std::string, AttrValue> f32 = {"dtype", DataType::kFloat};
  const std::pair<std::string, AttrValue> u64 = {"dtype", DataType::kUInt64};
  const std::pair<std::string, AttrValue> tseed = {"Tseed", DataType::kInt64};
  const std::pair<std::string, AttrValue> tshape = {"T", DataType::kInt32};
  const std::pair<std::string, AttrValue> tshape_v2 = {"Tshape", DataType::kInt32};

  op("StatelessRandomUniform", {f32, tseed, tshape});
  op("StatelessRandomNormal", {f32, tseed, tshape});
  op("StatelessTruncatedNormal", {f32, tseed, tshape});
  op("StatelessRandomUniformInt", {tseed, tshape});
  op("StatelessRandomUniformFullInt", {u64, tseed, tshape});
  r.AddOp({"StatelessMultinomial", {{"output_dtype", DataType::kInt64}, tseed}, InferMultinomial});
  op("StatelessRandomUniformV2", {f32, tshape_v2});
  op("StatelessRandomNormalV2", {f32, tshape_v2});
  op("StatelessTruncatedNormalV2", {f32, tshape_v2});
  op("StatelessRandomUniformIntV2", {tshape_v2});
  op("StatelessRandomUniformFullIntV2", {u64, tshape_v2});
  r.AddOp({"StatelessRandomGetKeyCounter", {tseed}, InferKeyCounter, Fixed(2)});
  r.AddOp({"StatelessRandomGetKeyCounterAlg", {tseed}, InferKeyCounter, Fixed(3)});
  r.AddOp({"StatelessRandomGetAlg", {}, InferAlg});
}

}  // namespace smrt::ops
