#include "passes/pass_test_util.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "kernels/registry.h"

namespace smrt::passes {
inline namespace testing {

std::vector<std::string> Optimized::ops() const {
  std::vector<std::string> out;
  for (const graph::Node& n : program->graph().nodes()) out.push_back(n.op);
  return out;
}

int Optimized::count(const std::string& op) const {
  std::vector<std::string> all = ops();
  return static_cast<int>(std::count(all.begin(), all.end(), op));
}

namespace {

// The graph imported, `optimize`d (when set) and made a Program.
absl::StatusOr<Optimized> BuildAnd(const std::string& graph_text,
                                   const std::vector<graph::FeedSpec>& feeds,
                                   const std::vector<std::string>& fetches,
                                   const std::function<absl::Status(PassContext&)>& optimize) {
  tfproto::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(graph_text, &def)) {
    return absl::InvalidArgumentError("bad GraphDef text");
  }
  const kernels::KernelRegistry& registry = kernels::KernelRegistry::Default();
  graph::ImportRequest request;
  request.feeds = feeds;
  request.fetches = fetches;
  absl::StatusOr<graph::ImportResult> imported = graph::ImportGraph(def, request, registry);
  if (!imported.ok()) return imported.status();
  exec::ProgramSpec spec{std::move(imported->graph), imported->feed_nodes,
                         imported->fetch_endpoints, imported->effect_nodes};
  Optimized out;
  if (optimize) {
    PassContext ctx{spec.graph, spec.feeds, spec.fetches, spec.effects, registry};
    if (absl::Status s = optimize(ctx); !s.ok()) return s;
    out.log = ctx.log;
    out.fusions = ctx.fusions;
  }
  absl::StatusOr<std::unique_ptr<exec::Program>> p =
      exec::Program::Create(std::move(spec), registry, {});
  if (!p.ok()) return p.status();
  out.program = *std::move(p);
  return out;
}

}  // namespace

absl::StatusOr<Optimized> Build(const std::string& graph_text,
                                const std::vector<graph::FeedSpec>& feeds,
                                const std::vector<std::string>& fetches,
                                const PipelineOptions* options) {
  if (options == nullptr) return BuildAnd(graph_text, feeds, fetches, nullptr);
  return BuildAnd(graph_text, feeds, fetches,
                  [options](PassContext& ctx) { return RunPipeline(ctx, *options); });
}

absl::StatusOr<Optimized> BuildWithPasses(const std::string& graph_text,
                                          const std::vector<graph::FeedSpec>& feeds,
                                          const std::vector<std::string>& fetches,
                                          std::vector<std::unique_ptr<Pass>> passes) {
  return BuildAnd(graph_text, feeds, fetches, [&passes](PassContext& ctx) {
    return RunPasses(ctx, PipelineOptions{}, std::move(passes));
  });
}

absl::StatusOr<Both> RunBoth(const std::string& graph_text,
                             const std::vector<graph::FeedSpec>& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<Tensor>& inputs, const PipelineOptions& options) {
  Both b;
  absl::StatusOr<Optimized> fused = Build(graph_text, feeds, fetches, &options);
  if (!fused.ok()) return fused.status();
  absl::StatusOr<Optimized> plain = Build(graph_text, feeds, fetches, nullptr);
  if (!plain.ok()) return plain.status();
  b.fused = *std::move(fused);
  b.plain = *std::move(plain);
  absl::StatusOr<std::vector<Tensor>> f = b.fused.program->Run(inputs);
  if (!f.ok()) return f.status();
  absl::StatusOr<std::vector<Tensor>> p = b.plain.program->Run(inputs);
  if (!p.ok()) return p.status();
  b.fused_out = *std::move(f);
  b.plain_out = *std::move(p);
  return b;
}

float MaxAbsDiff(const Tensor& a, const Tensor& b) {
  if (a.dtype() != DataType::kFloat || b.dtype() != DataType::kFloat || a.shape() != b.shape()) {
    return std::numeric_limits<float>::infinity();
  }
  float m = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    float d = std::fabs(a.data<float>()[i] - b.data<float>()[i]);
    if (!(d <= m)) m = d;  // NaN propagates
  }
  return m;
}

Tensor RandomFloats(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor t = *Tensor::Create(DataType::kFloat, shape);
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f;
  }
  return t;
}

std::string FloatConst(const std::string& name, const Tensor& value) {
  std::vector<std::string> dims, vals;
  for (int64_t d : value.shape()) dims.push_back(absl::StrCat("dim { size: ", d, " }"));
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    vals.push_back(absl::StrCat("float_val: ", value.data<float>()[i]));
  }
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
                      "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { ",
                      absl::StrJoin(dims, " "), " } ", absl::StrJoin(vals, " "), " } } } }\n");
}

std::string Placeholder(const std::string& name, const std::string& type) {
  return absl::StrCat("node { name: \"", name, "\" op: \"Placeholder\" attr { key: \"dtype\" ",
                      "value { type: ", type, " } } }\n");
}

std::string Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
               const std::string& attrs, const std::string& type) {
  std::string in;
  for (const std::string& i : inputs) absl::StrAppend(&in, " input: \"", i, "\"");
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"", in,
                      " attr { key: \"T\" value { type: ", type, " } } ", attrs, " }\n");
}
std::string Scalar(const std::string& name, float v) {
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: "
                      "\"value\" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ",
                      v, " } } } }\n");
}

}  // namespace testing
}  // namespace smrt::passes
