// Programs from GraphDef text, for the executor's tests.
#ifndef SMRT_TESTS_EXEC_COMPILE_GRAPH_H_
#define SMRT_TESTS_EXEC_COMPILE_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "exec/program.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"

namespace smrt::exec::testing {

// Imports `text` with these feeds and one fetch and makes its Program with
// the default registry; null (and a test failure) when that fails.
inline std::unique_ptr<Program> Compile(const std::string& text,
                                        const std::vector<std::string>& feeds,
                                        const std::string& fetch) {
  const kernels::KernelRegistry& registry = kernels::KernelRegistry::Default();
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
  graph::ImportRequest req;
  for (const std::string& f : feeds) req.feeds.push_back({f, DataType::kInvalid, PartialShape::Unknown()});
  req.fetches.push_back(fetch);
  absl::StatusOr<graph::ImportResult> r = graph::ImportGraph(g, req, registry);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return nullptr;
  ProgramSpec spec{std::move(r->graph), r->feed_nodes, r->fetch_endpoints, {}};
  absl::StatusOr<std::unique_ptr<Program>> p = Program::Create(std::move(spec), registry, {});
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

}  // namespace smrt::exec::testing

// A float32 node of `op` with these inputs, as GraphDef text.
#define SMRT_FLOAT_OP(name, op, inputs) \
  "node { name: '" name "' op: '" op "' " inputs " attr { key: 'T' value { type: DT_FLOAT } } }\n"

#endif  // SMRT_TESTS_EXEC_COMPILE_GRAPH_H_
