// Structure-aware fuzzing of whole SavedModels: the mutator parses the proto
// and changes what it means (node inputs, attrs, shapes, constants, the
// function library, signatures, checkpoint index entries), so that every
// input is a valid protobuf with a hostile graph in it. Byte-level mutation
// (saved_model_fuzzer) rarely gets past the proto parser with a graph that
// still imports; this one starts from real models and stays near them.
//
// Input layout:
//   byte 0        selects a seed model directory (the lines of
//                 semantic_seed_models.txt, modulo their number): the model
//                 is loaded with that directory's variables/ and assets/
//   bytes 1..4    little-endian length L of the SavedModel proto
//   L bytes       saved_model.pb (tensorflow.SavedModel)
//   the rest      optional, the checkpoint index: a little-endian uint32
//                 count, then count records of (uint32 key length, key,
//                 uint32 value length, value), value a serialized
//                 BundleEntryProto (BundleHeaderProto for the key ""). It
//                 replaces variables/variables.index (data shards stay the
//                 seed's). Absent: the seed's own index.
//
// Each input is loaded with fuzz::TightOptions(), every signature run once,
// then checked with smrt::CheckModel under the same options. Environment:
// SMRT_FUZZ_VERBOSE=1 prints what became of each input (load and check
// status), SMRT_FUZZ_NO_CHECK=1 leaves CheckModel out.
//
// Seeds: scripts/fuzz.sh (tests/fuzz/make_seeds.py) writes one input per seed
// model, without an index section; the mutator adds the seed's index when it
// first mutates an entry.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/file.h"
#include "fuzz_util.h"
#include "loader/sstable_reader.h"
#include "smrt/check.h"
#include "smrt/tfproto/saved_model.pb.h"
#include "smrt/tfproto/tensor_bundle.pb.h"
#include "testing/bundle_writer.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace fs = std::filesystem;
using smrt::tfproto::AttrValue;
using smrt::tfproto::DataType;
using smrt::tfproto::FunctionDef;
using smrt::tfproto::GraphDef;
using smrt::tfproto::NodeDef;
using smrt::tfproto::TensorProto;
using smrt::tfproto::TensorShapeProto;

using Records = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------
// The input format.

struct Input {
  uint8_t selector = 0;
  std::string pb;
  bool has_index = false;
  Records index;
};

uint32_t ReadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void AppendU32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

// Lenient: whatever bytes libFuzzer hands over decode to something (a
// truncated proto, a shorter index).
Input Decode(const uint8_t* data, size_t size) {
  Input in;
  if (size == 0) return in;
  in.selector = data[0];
  data += 1;
  size -= 1;
  size_t pb_size = size;
  if (size >= 4) {
    pb_size = std::min<size_t>(ReadU32(data), size - 4);
    data += 4;
    size -= 4;
  }
  in.pb.assign(reinterpret_cast<const char*>(data), pb_size);
  data += pb_size;
  size -= pb_size;
  if (size < 4) return in;
  in.has_index = true;
  uint32_t count = ReadU32(data);
  data += 4;
  size -= 4;
  for (uint32_t i = 0; i < count && size >= 4; ++i) {
    std::string parts[2];
    for (std::string& part : parts) {
      if (size < 4) break;
      const size_t n = std::min<size_t>(ReadU32(data), size - 4);
      part.assign(reinterpret_cast<const char*>(data + 4), n);
      data += 4 + n;
      size -= 4 + n;
    }
    in.index.emplace_back(std::move(parts[0]), std::move(parts[1]));
  }
  return in;
}

std::string Encode(const Input& in) {
  std::string out(1, static_cast<char>(in.selector));
  AppendU32(out, static_cast<uint32_t>(in.pb.size()));
  out += in.pb;
  if (in.has_index) {
    AppendU32(out, static_cast<uint32_t>(in.index.size()));
    for (const auto& [key, value] : in.index) {
      AppendU32(out, static_cast<uint32_t>(key.size()));
      out += key;
      AppendU32(out, static_cast<uint32_t>(value.size()));
      out += value;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Seed models and their scratch copies.

const std::vector<std::string>& SeedDirs() {
  static const auto* dirs = [] {
    auto* d = new std::vector<std::string>;
    const std::string root = SMRT_FUZZ_SOURCE_DIR;
    std::ifstream list(root + "/tests/fuzz/semantic_seed_models.txt");
    std::string line;
    while (std::getline(list, line)) {
      if (line.empty() || line[0] == '#') continue;
      d->push_back(root + "/" + line);
    }
    if (d->empty()) d->push_back(root + "/tests/data/zoo/tf1_cond/saved_model");
    return d;
  }();
  return *dirs;
}

size_t SeedIndex(uint8_t selector) { return selector % SeedDirs().size(); }

// The seed's variables/variables.index as records (empty when it has none).
const Records& SeedIndexRecords(size_t seed) {
  static auto* cache = new std::map<size_t, Records>;
  auto it = cache->find(seed);
  if (it != cache->end()) return it->second;
  Records records;
  absl::StatusOr<smrt::loader::SstableEntries> entries =
      smrt::loader::ReadSstable(SeedDirs()[seed] + "/variables/variables.index");
  if (entries.ok()) records = *std::move(entries);
  return (*cache)[seed] = std::move(records);
}

// A copy of the seed's variables/ and assets/ (copies, not links: the loader
// may refuse links out of the model directory), made once per seed; the
// caller writes saved_model.pb and, with an index section, variables.index.
struct Scratch {
  std::string dir;
  std::string original_index;  // "" when the seed has none
  bool index_replaced = false;
};

Scratch& ScratchFor(size_t seed) {
  static auto* scratch = new std::map<size_t, Scratch>;
  auto it = scratch->find(seed);
  if (it != scratch->end()) return it->second;
  Scratch s;
  s.dir = smrt::fuzz::ScratchDir() + "/semantic_" + std::to_string(seed);
  fs::create_directories(s.dir);
  std::error_code ec;
  for (const char* sub : {"variables", "assets"}) {
    const fs::path from = fs::path(SeedDirs()[seed]) / sub;
    if (fs::is_directory(from, ec)) {
      fs::copy(from, fs::path(s.dir) / sub, fs::copy_options::recursive, ec);
    }
  }
  absl::StatusOr<std::string> index =
      smrt::file::ReadAll(s.dir + "/variables/variables.index", 64 << 20);
  if (index.ok()) s.original_index = *std::move(index);
  return (*scratch)[seed] = std::move(s);
}

// Writes the input's index (sorted, one record per key: the table format
// needs increasing keys, and a byte-level fuzzer covers unsorted tables) or
// puts the seed's own back.
void PrepareIndex(Scratch& s, const Input& in) {
  const std::string path = s.dir + "/variables/variables.index";
  if (!in.has_index) {
    if (s.index_replaced) {
      std::error_code ec;
      if (s.original_index.empty()) {
        fs::remove(path, ec);
      } else {
        (void)smrt::file::WriteAll(path, s.original_index);
      }
      s.index_replaced = false;
    }
    return;
  }
  Records records = in.index;
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  records.erase(std::unique(records.begin(), records.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                records.end());
  absl::StatusOr<std::string> table = smrt::testing::BuildSstable(records);
  if (!table.ok()) return;
  std::error_code ec;
  fs::create_directories(s.dir + "/variables", ec);
  (void)smrt::file::WriteAll(path, *table);
  s.index_replaced = true;
}

// ---------------------------------------------------------------------------
// Random choices.

using Rng = std::mt19937_64;

size_t Below(Rng& rng, size_t n) {
  if (n <= 1) return 0;
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}
bool OneIn(Rng& rng, size_t n) { return Below(rng, n) == 0; }
template <typename T>
const T& PickOf(Rng& rng, const std::vector<T>& v) {
  return v[Below(rng, v.size())];
}

// clang-format off
int64_t InterestingInt(Rng& rng) {
  static const std::vector<int64_t> kInts = {
      0,         -1,         1,          2,         3,          7,
      -7,        255,        256,        65535,     65536,      (int64_t{1} << 31) - 1,
      int64_t{1} << 31,      -(int64_t{1} << 31),   int64_t{1} << 32, int64_t{1} << 40,
      int64_t{1} << 62,      std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min(),          std::numeric_limits<int64_t>::max() / 2 + 1,
      4294967295,            1000000007};
  return PickOf(rng, kInts);
}

// Dims: unknown, negative, zero, huge, and sizes whose products overflow.
int64_t InterestingDim(Rng& rng) {
  static const std::vector<int64_t> kDims = {
      -1, -2, -7, 0, 1, 2, 3, 17, 1 << 20, int64_t{1} << 31, int64_t{1} << 40,
      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
      (int64_t{1} << 62) + 1};
  return PickOf(rng, kDims);
}

DataType InterestingDtype(Rng& rng) {
  static const std::vector<int> kTypes = {0,  1,  2,  3,  4,   5,   6,   7,  8,    9,  10, 11,
                                          14, 17, 18, 19, 20,  21,  22,  23, 24,   29, 30, 101,
                                          107, 119, 120, 200, 999, -1, 1 << 20};
  return static_cast<DataType>(PickOf(rng, kTypes));
}
// clang-format on

std::string LongString(Rng& rng, size_t room) {
  size_t n = std::min<size_t>(size_t{1} << Below(rng, 17), room);
  return std::string(n, static_cast<char>('a' + Below(rng, 26)));
}

// ---------------------------------------------------------------------------
// A view of every node, function and signature of a parsed SavedModel.
// Rebuilt after each mutation (adding and deleting entries moves them).

struct Scope {
  GraphDef* graph = nullptr;        // the meta graph's graph
  FunctionDef* function = nullptr;  // null: the top-level graph
  std::vector<NodeDef*> nodes;
  std::vector<std::string> args;  // a function's input arg names
};

struct NodeSite {
  Scope* scope;
  size_t index;
  NodeDef* node() const { return scope->nodes[index]; }
};

bool IsControlFlow(const std::string& op) {
  static const char* kOps[] = {"Switch",         "RefSwitch",
                               "Merge",          "RefMerge",
                               "Enter",          "RefEnter",
                               "Exit",           "RefExit",
                               "NextIteration",  "RefNextIteration",
                               "LoopCond",       "While",
                               "StatelessWhile", "If",
                               "StatelessIf",    "Case",
                               "StatelessCase"};
  for (const char* o : kOps) {
    if (op == o) return true;
  }
  return false;
}

struct View {
  std::vector<std::unique_ptr<Scope>> scopes;
  std::vector<NodeSite> nodes;
  std::vector<NodeSite> control_flow;
  std::vector<NodeSite> with_inputs;
  std::vector<GraphDef*> graphs;
  std::vector<FunctionDef*> functions;
  std::vector<smrt::tfproto::MetaGraphDef*> meta_graphs;
  std::vector<TensorProto*> tensors;      // Const values, attr tensors, signature defaults
  std::vector<TensorShapeProto*> shapes;  // attr shapes, tensor shapes, signature shapes
  std::vector<std::string> ops;           // every op name seen

  explicit View(smrt::tfproto::SavedModel& sm) {
    for (smrt::tfproto::MetaGraphDef& mg : *sm.mutable_meta_graphs()) {
      meta_graphs.push_back(&mg);
      GraphDef* g = mg.mutable_graph_def();
      graphs.push_back(g);
      auto top = std::make_unique<Scope>();
      top->graph = g;
      for (NodeDef& n : *g->mutable_node()) top->nodes.push_back(&n);
      scopes.push_back(std::move(top));
      for (FunctionDef& f : *g->mutable_library()->mutable_function()) {
        functions.push_back(&f);
        auto s = std::make_unique<Scope>();
        s->graph = g;
        s->function = &f;
        for (NodeDef& n : *f.mutable_node_def()) s->nodes.push_back(&n);
        for (const auto& a : f.signature().input_arg()) s->args.push_back(a.name());
        scopes.push_back(std::move(s));
      }
      for (auto& [key, sig] : *mg.mutable_signature_def()) {
        for (auto* m : {sig.mutable_inputs(), sig.mutable_outputs()}) {
          for (auto& [k, info] : *m) shapes.push_back(info.mutable_tensor_shape());
        }
        for (auto& [k, t] : *sig.mutable_defaults()) AddTensor(&t);
      }
    }
    for (auto& s : scopes) {
      for (size_t i = 0; i < s->nodes.size(); ++i) {
        NodeSite site{s.get(), i};
        NodeDef* n = s->nodes[i];
        nodes.push_back(site);
        ops.push_back(n->op());
        if (IsControlFlow(n->op())) control_flow.push_back(site);
        if (n->input_size() > 0) with_inputs.push_back(site);
        for (auto& [name, attr] : *n->mutable_attr()) AddAttr(&attr);
      }
    }
  }

  void AddTensor(TensorProto* t) {
    tensors.push_back(t);
    shapes.push_back(t->mutable_tensor_shape());
  }
  void AddAttr(AttrValue* a) {
    if (a->has_shape()) shapes.push_back(a->mutable_shape());
    if (a->has_tensor()) AddTensor(a->mutable_tensor());
    if (a->has_list()) {
      for (auto& s : *a->mutable_list()->mutable_shape()) shapes.push_back(&s);
      for (auto& t : *a->mutable_list()->mutable_tensor()) AddTensor(&t);
    }
  }

  // Control-flow nodes half of the time when there are any (the TF1
  // executor's Switch/Merge/Enter/Exit bookkeeping is where inputs matter most).
  const NodeSite* PickNode(Rng& rng, bool need_inputs) const {
    if (!control_flow.empty() && OneIn(rng, 2)) return &PickOf(rng, control_flow);
    const std::vector<NodeSite>& from = need_inputs && !with_inputs.empty() ? with_inputs : nodes;
    if (from.empty()) return nullptr;
    return &PickOf(rng, from);
  }
};

// The name a node input refers to: "^x" -> x, "x:1" -> x, "x:out:0" -> x.
std::string InputNode(const std::string& in) {
  size_t start = !in.empty() && in[0] == '^' ? 1 : 0;
  return in.substr(start, in.find(':', start) - start);
}

// A well-formed reference to node `name` of `scope` (data edge).
std::string RefTo(const Scope& scope, const std::string& name) {
  if (scope.function == nullptr) return name;
  // Function bodies name outputs "node:arg:index"; borrow an arg name that
  // some consumer already uses for this node, else the usual "output".
  for (const NodeDef* n : scope.nodes) {
    for (const std::string& in : n->input()) {
      if (!in.empty() && in[0] != '^' && InputNode(in) == name &&
          in.find(':') != std::string::npos) {
        return in;
      }
    }
  }
  return name + ":output:0";
}

// ---------------------------------------------------------------------------
// Mutations. Each returns false when it found nothing to change.

bool MutateInputs(View& v, Rng& rng) {
  const NodeSite* site = v.PickNode(rng, /*need_inputs=*/true);
  if (site == nullptr) return false;
  NodeDef* n = site->node();
  const Scope& scope = *site->scope;
  auto* inputs = n->mutable_input();
  const int count = inputs->size();
  const int at = count > 0 ? static_cast<int>(Below(rng, count)) : -1;
  switch (Below(rng, 11)) {
    case 0:  // drop one (data inputs first: they are what the kernels index)
      if (count == 0) return false;
      inputs->erase(inputs->begin() + at);
      return true;
    case 1:  // empty all
      if (count == 0) return false;
      inputs->Clear();
      return true;
    case 2: {  // reorder
      if (count < 2) return false;
      std::vector<std::string> all(inputs->begin(), inputs->end());
      if (OneIn(rng, 2)) {
        std::swap(all[0], all[1]);
      } else {
        std::shuffle(all.begin(), all.end(), rng);
      }
      inputs->Clear();
      for (std::string& s : all) n->add_input(std::move(s));
      return true;
    }
    case 3: {  // a node that does not exist
      static const char* kMissing[] = {"no_such_node", "no_such_node:0", "^no_such_node",
                                       "no_such_node:output:0", ""};
      std::string ref = kMissing[Below(rng, 5)];
      if (at >= 0 && OneIn(rng, 2)) {
        (*inputs)[at] = ref;
      } else {
        n->add_input(ref);
      }
      return true;
    }
    case 4: {  // a later node (in a graph: maybe a cycle), or the node itself
      size_t target = site->index + 1 + Below(rng, scope.nodes.size());
      if (target >= scope.nodes.size() || OneIn(rng, 4)) target = site->index;
      std::string ref = RefTo(scope, scope.nodes[target]->name());
      if (at >= 0) {
        (*inputs)[at] = ref;
      } else {
        n->add_input(ref);
      }
      return true;
    }
    case 5: {  // data "x" <-> control "^x"
      if (count == 0) return false;
      std::string& in = (*inputs)[at];
      if (!in.empty() && in[0] == '^') {
        in = in.substr(1);
      } else {
        in = "^" + InputNode(in);
      }
      return true;
    }
    case 6: {  // every data input becomes a control input
      bool changed = false;
      for (std::string& in : *inputs) {
        if (!in.empty() && in[0] != '^') {
          in = "^" + InputNode(in);
          changed = true;
        }
      }
      return changed;
    }
    case 7: {  // a bad output index
      if (count == 0) return false;
      std::string& in = (*inputs)[at];
      const std::string node = InputNode(in);
      static const char* kIndex[] = {"7", "-1", "2", "99999999999999999999", "", "x", "1"};
      const std::string index = kIndex[Below(rng, 7)];
      if (scope.function != nullptr) {
        const size_t colon = in.rfind(':');
        in = colon != std::string::npos && InputNode(in) != in.substr(0, colon)
                 ? in.substr(0, colon + 1) + index
                 : node + ":output:" + index;
      } else {
        in = node + ":" + index;
      }
      return true;
    }
    case 8:  // one more input, a copy of another (a wrong input count)
      if (count == 0) return false;
      n->add_input((*inputs)[at]);
      return true;
    case 9: {  // an input of another node, or a function argument
      std::string ref;
      if (!scope.args.empty() && OneIn(rng, 2)) {
        ref = PickOf(rng, scope.args);
      } else {
        const NodeDef* other = scope.nodes[Below(rng, scope.nodes.size())];
        if (other->input_size() == 0) return false;
        ref = other->input(static_cast<int>(Below(rng, other->input_size())));
      }
      if (at >= 0 && OneIn(rng, 2)) {
        (*inputs)[at] = ref;
      } else {
        n->add_input(ref);
      }
      return true;
    }
    default: {  // swap the op for another control-flow op (same inputs)
      static const char* kOps[] = {"Switch",   "Merge",         "Enter",
                                   "Exit",     "NextIteration", "LoopCond",
                                   "Identity", "RefSwitch",     "ControlTrigger"};
      n->set_op(kOps[Below(rng, 9)]);
      return true;
    }
  }
}

// A random entry of a node's attr map (nullptr when it has none).
AttrValue* PickAttr(NodeDef* n, Rng& rng, std::string* name = nullptr) {
  auto* attrs = n->mutable_attr();
  if (attrs->empty()) return nullptr;
  auto it = attrs->begin();
  std::advance(it, Below(rng, attrs->size()));
  if (name != nullptr) *name = it->first;
  return &it->second;
}

void SetHostileShape(TensorShapeProto* s, Rng& rng) {
  switch (Below(rng, 6)) {
    case 0:
      s->Clear();  // scalar
      break;
    case 1:
      s->Clear();
      s->set_unknown_rank(true);
      break;
    case 2:
      if (s->dim_size() == 0) s->add_dim();
      s->mutable_dim(static_cast<int>(Below(rng, s->dim_size())))->set_size(InterestingDim(rng));
      break;
    case 3: {  // many dims: rank limits, and products that overflow
      const int rank = OneIn(rng, 2) ? 9 : 70;
      s->Clear();
      const int64_t d = OneIn(rng, 2) ? 1 : 1 << 10;
      for (int i = 0; i < rank; ++i) s->add_dim()->set_size(d);
      break;
    }
    case 4: s->add_dim()->set_size(InterestingDim(rng)); break;
    default:
      s->set_unknown_rank(!s->unknown_rank());  // with dims: contradictory
      if (s->dim_size() == 0) s->add_dim()->set_size(3);
      break;
  }
}

bool MutateAttrs(View& v, Rng& rng, size_t room) {
  const NodeSite* site = v.PickNode(rng, /*need_inputs=*/false);
  if (site == nullptr) return false;
  NodeDef* n = site->node();
  std::string name;
  AttrValue* a = PickAttr(n, rng, &name);
  switch (Below(rng, 9)) {
    case 0: {  // the wrong kind of value
      if (a == nullptr) a = &(*n->mutable_attr())[OneIn(rng, 2) ? "T" : "dtype"];
      const AttrValue::ValueCase was = a->value_case();
      AttrValue::ValueCase want = was;
      while (want == was) want = static_cast<AttrValue::ValueCase>(1 + Below(rng, 10));
      a->Clear();
      switch (want) {
        case AttrValue::kS: a->set_s("SAME"); break;
        case AttrValue::kI: a->set_i(InterestingInt(rng)); break;
        case AttrValue::kF: a->set_f(-1e30f); break;
        case AttrValue::kB: a->set_b(true); break;
        case AttrValue::kType: a->set_type(InterestingDtype(rng)); break;
        case AttrValue::kShape: SetHostileShape(a->mutable_shape(), rng); break;
        case AttrValue::kTensor: a->mutable_tensor()->set_dtype(InterestingDtype(rng)); break;
        case AttrValue::kList:
          a->mutable_list()->add_i(InterestingInt(rng));
          if (OneIn(rng, 2)) a->mutable_list()->add_type(InterestingDtype(rng));
          break;
        case AttrValue::kFunc: a->mutable_func()->set_name("no_such_function"); break;
        default: a->set_placeholder("T"); break;
      }
      return true;
    }
    case 1: {  // huge and negative ints, alone or in lists
      if (a == nullptr) return false;
      if (a->has_list() && a->list().i_size() > 0) {
        auto* l = a->mutable_list()->mutable_i();
        l->Set(static_cast<int>(Below(rng, l->size())), InterestingInt(rng));
      } else if (a->has_list() && OneIn(rng, 2)) {
        for (int i = 0; i < 1 + static_cast<int>(Below(rng, 5)); ++i) {
          a->mutable_list()->add_i(InterestingInt(rng));
        }
      } else {
        a->set_i(InterestingInt(rng));
      }
      return true;
    }
    case 2: {  // wrong dtype enums
      if (a == nullptr) return false;
      if (a->has_list() && a->list().type_size() > 0) {
        auto* l = a->mutable_list()->mutable_type();
        l->Set(static_cast<int>(Below(rng, l->size())), InterestingDtype(rng));
      } else {
        a->set_type(InterestingDtype(rng));
      }
      return true;
    }
    case 3:  // empty, unknown, negative, huge shapes
      if (a == nullptr) a = &(*n->mutable_attr())["shape"];
      if (a->has_list() && a->list().shape_size() > 0) {
        SetHostileShape(
            a->mutable_list()->mutable_shape(static_cast<int>(Below(rng, a->list().shape_size()))),
            rng);
      } else {
        SetHostileShape(a->mutable_shape(), rng);
      }
      return true;
    case 4:  // delete an attr the op may require
      if (a == nullptr) return false;
      n->mutable_attr()->erase(name);
      return true;
    case 5:  // strings: unknown enum values, long ones
      if (a == nullptr) return false;
      a->set_s(OneIn(rng, 2) ? std::string("NOT_A_VALUE") : LongString(rng, room));
      return true;
    case 6: {  // lists: emptied, or one element repeated many times
      if (a == nullptr || !a->has_list()) return false;
      auto* l = a->mutable_list();
      if (OneIn(rng, 2)) {
        l->Clear();
      } else if (l->i_size() > 0) {
        for (int i = 0; i < 64; ++i) l->add_i(l->i(0));
      } else if (l->type_size() > 0) {
        for (int i = 0; i < 64; ++i) l->add_type(l->type(0));
      } else {
        l->Clear();
      }
      return true;
    }
    case 7: {  // the op of another node (inputs and attrs that do not fit it)
      if (v.ops.empty()) return false;
      n->set_op(OneIn(rng, 8) ? std::string("NoSuchOp") : PickOf(rng, v.ops));
      return true;
    }
    default: {  // a float attr: nan, inf, negative
      if (a == nullptr) return false;
      static const float kFloats[] = {std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity(), -1.0f, 0.0f, 1e38f};
      a->set_f(kFloats[Below(rng, 5)]);
      return true;
    }
  }
}

bool MutateShapes(View& v, Rng& rng) {
  if (v.shapes.empty()) return false;
  SetHostileShape(PickOf(rng, v.shapes), rng);
  return true;
}

// Clears every value field, keeping dtype and shape.
void ClearValues(TensorProto* t) {
  const DataType dtype = t->dtype();
  TensorShapeProto shape = t->tensor_shape();
  t->Clear();
  t->set_dtype(dtype);
  *t->mutable_tensor_shape() = std::move(shape);
}

// One value of the tensor's dtype in its *_val field (a splat).
void SetOneValue(TensorProto* t) {
  switch (t->dtype()) {
    case smrt::tfproto::DT_FLOAT:
      t->add_float_val(1.5f);
      break;
    case smrt::tfproto::DT_DOUBLE:
      t->add_double_val(1.5);
      break;
    case smrt::tfproto::DT_INT64:
      t->add_int64_val(7);
      break;
    case smrt::tfproto::DT_STRING:
      t->add_string_val("splat");
      break;
    case smrt::tfproto::DT_BOOL:
      t->add_bool_val(true);
      break;
    case smrt::tfproto::DT_HALF:
    case smrt::tfproto::DT_BFLOAT16:
      t->add_half_val(0x3c00);
      break;
    case smrt::tfproto::DT_COMPLEX64:
      t->add_scomplex_val(1);
      t->add_scomplex_val(2);
      break;
    case smrt::tfproto::DT_UINT32:
      t->add_uint32_val(7);
      break;
    case smrt::tfproto::DT_UINT64:
      t->add_uint64_val(7);
      break;
    default: t->add_int_val(7); break;
  }
}

bool MutateConst(View& v, Rng& rng, size_t room) {
  if (v.tensors.empty()) return false;
  TensorProto* t = PickOf(rng, v.tensors);
  switch (Below(rng, 9)) {
    case 0: {  // tensor_content whose length does not match the shape
      std::string* c = t->mutable_tensor_content();
      if (!c->empty() && OneIn(rng, 2)) {
        c->resize(Below(rng, c->size()));
      } else {
        c->append(1 + Below(rng, 9), '\x7f');
      }
      return true;
    }
    case 1: {  // a huge splat: one value, a shape of 2^20..2^62 elements
      ClearValues(t);
      if (OneIn(rng, 3))
        t->set_dtype(OneIn(rng, 2) ? smrt::tfproto::DT_STRING : smrt::tfproto::DT_FLOAT);
      SetOneValue(t);
      t->clear_tensor_shape();
      const int bits = 20 + static_cast<int>(Below(rng, 43));
      const int rank = 1 + static_cast<int>(Below(rng, 3));
      int left = bits;
      for (int i = 0; i < rank; ++i) {
        const int b = i + 1 == rank ? left : left / 2;
        t->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << b);
        left -= b;
      }
      return true;
    }
    case 2: {  // long strings, as values or as a splat
      ClearValues(t);
      t->set_dtype(smrt::tfproto::DT_STRING);
      const int n = 1 + static_cast<int>(Below(rng, 4));
      for (int i = 0; i < n; ++i) t->add_string_val(LongString(rng, room / n));
      t->clear_tensor_shape();
      t->mutable_tensor_shape()->add_dim()->set_size(
          OneIn(rng, 2) ? n : int64_t{1} << (10 + Below(rng, 20)));
      return true;
    }
    case 3:  // huge, negative, overflowing dims
      SetHostileShape(t->mutable_tensor_shape(), rng);
      return true;
    case 4:  // another dtype for the same bytes
      t->set_dtype(InterestingDtype(rng));
      return true;
    case 5: {  // more values than the shape holds
      const int extra = 1 + static_cast<int>(Below(rng, 64));
      for (int i = 0; i < extra; ++i) {
        t->add_float_val(1.0f);
        t->add_int_val(1);
      }
      return true;
    }
    case 6: {  // values moved to a field of another dtype
      std::string content = t->tensor_content();
      ClearValues(t);
      for (size_t i = 0; i + 8 <= content.size() && i < 512; i += 8) {
        int64_t x;
        std::memcpy(&x, content.data() + i, 8);
        t->add_int64_val(x);
      }
      if (t->int64_val_size() == 0) t->add_double_val(2.5);
      return true;
    }
    case 7:  // no value at all
      ClearValues(t);
      if (OneIn(rng, 2)) t->clear_tensor_shape();
      return true;
    default: {  // resource and variant tensors with made-up contents
      ClearValues(t);
      t->set_dtype(OneIn(rng, 2) ? smrt::tfproto::DT_RESOURCE : smrt::tfproto::DT_VARIANT);
      t->add_resource_handle_val()->set_name("no_such_resource");
      auto* var = t->add_variant_val();
      var->set_type_name("smrt::tfproto::TensorList");
      var->add_tensors()->set_dtype(smrt::tfproto::DT_FLOAT);
      return true;
    }
  }
}

// Attrs of a call to `callee` as PartitionedCall carries them.
void MakeCall(NodeDef* call, const FunctionDef& callee) {
  call->set_op("PartitionedCall");
  (*call->mutable_attr())["f"].mutable_func()->set_name(callee.signature().name());
  auto* tin = (*call->mutable_attr())["Tin"].mutable_list();
  for (const auto& a : callee.signature().input_arg()) tin->add_type(a.type());
  auto* tout = (*call->mutable_attr())["Tout"].mutable_list();
  for (const auto& a : callee.signature().output_arg()) tout->add_type(a.type());
}

bool MutateFunctions(View& v, Rng& rng) {
  if (v.functions.empty()) return false;
  FunctionDef* f = PickOf(rng, v.functions);
  auto* sig = f->mutable_signature();
  switch (Below(rng, 9)) {
    case 0: {  // recursion: a node of f (or a func attr) calls f itself
      if (f->node_def_size() == 0) return false;
      NodeDef* n = f->mutable_node_def(static_cast<int>(Below(rng, f->node_def_size())));
      AttrValue* fn = nullptr;
      for (auto& [k, a] : *n->mutable_attr()) {
        if (a.has_func()) fn = &a;
      }
      if (fn != nullptr && OneIn(rng, 2)) {
        fn->mutable_func()->set_name(sig->name());
      } else if (OneIn(rng, 2)) {
        n->set_op(sig->name());  // a call by op name
      } else {
        n->clear_attr();
        MakeCall(n, *f);
      }
      return true;
    }
    case 1: {  // fan-out: f calls g twice (stacked, a call tree that doubles per level)
      const FunctionDef* g = PickOf(rng, v.functions);
      const std::string tag = std::to_string(Below(rng, 1 << 20));
      std::vector<std::string> names;
      for (const char* suffix : {"_a", "_b"}) {
        NodeDef* call = f->add_node_def();
        call->set_name("fanout_" + tag + suffix);
        MakeCall(call, *g);
        for (int i = 0; i < g->signature().input_arg_size(); ++i) {
          if (sig->input_arg_size() == 0) break;  // then the count is wrong
          call->add_input(sig->input_arg(i % sig->input_arg_size()).name());
        }
        names.push_back(call->name());
      }
      // Keep the calls alive: control inputs of a node the function returns,
      // or control outputs.
      if (f->node_def_size() > 2 && OneIn(rng, 2)) {
        NodeDef* keep = f->mutable_node_def(static_cast<int>(Below(rng, f->node_def_size() - 2)));
        for (const std::string& nm : names) keep->add_input("^" + nm);
      } else {
        for (const std::string& nm : names) {
          sig->add_control_output(nm);
          (*f->mutable_control_ret())[nm] = nm;
        }
      }
      return true;
    }
    case 2:  // a node_def entry dropped (its consumers dangle)
      if (f->node_def_size() == 0) return false;
      f->mutable_node_def()->DeleteSubrange(static_cast<int>(Below(rng, f->node_def_size())), 1);
      return true;
    case 3:  // one more or one fewer argument than the callers pass
      if (OneIn(rng, 2) && sig->input_arg_size() > 0) {
        sig->mutable_input_arg()->RemoveLast();
      } else {
        auto* a = sig->add_input_arg();
        a->set_name("extra_arg");
        a->set_type(smrt::tfproto::DT_FLOAT);
      }
      return true;
    case 4:  // one more or one fewer result than ret holds
      if (OneIn(rng, 2) && sig->output_arg_size() > 0) {
        sig->mutable_output_arg()->RemoveLast();
      } else {
        auto* a = sig->add_output_arg();
        a->set_name("extra_out");
        a->set_type(smrt::tfproto::DT_INT32);
      }
      return true;
    case 5: {  // ret pointing at a missing node, an argument, or removed
      if (f->ret().empty()) return false;
      auto it = f->mutable_ret()->begin();
      std::advance(it, Below(rng, f->ret_size()));
      switch (Below(rng, 3)) {
        case 0: it->second = "no_such_node:output:0"; break;
        case 1:
          it->second = sig->input_arg_size() > 0 ? sig->input_arg(0).name() : std::string("");
          break;
        default: f->mutable_ret()->erase(it); break;
      }
      return true;
    }
    case 6: {  // two functions with one name
      smrt::tfproto::FunctionDefLibrary* lib = nullptr;
      for (GraphDef* g : v.graphs) {
        for (const FunctionDef& h : g->library().function()) {
          if (&h == f) lib = g->mutable_library();
        }
      }
      if (lib == nullptr) return false;
      FunctionDef copy = *f;
      if (copy.node_def_size() > 0) copy.mutable_node_def()->RemoveLast();
      *lib->add_function() = std::move(copy);
      return true;
    }
    case 7:  // renamed: its callers call nothing
      sig->set_name(OneIn(rng, 2) ? sig->name() + "_renamed"
                                  : PickOf(rng, v.functions)->signature().name());
      return true;
    default: {  // argument and result dtypes that do not match the body
      auto* args = OneIn(rng, 2) ? sig->mutable_input_arg() : sig->mutable_output_arg();
      if (args->empty()) return false;
      auto* a = args->Mutable(static_cast<int>(Below(rng, args->size())));
      if (OneIn(rng, 3)) {
        a->set_type_attr("T_missing");
      } else {
        a->set_type(InterestingDtype(rng));
      }
      return true;
    }
  }
}

bool MutateGraphNodes(View& v, Rng& rng) {
  if (v.graphs.empty()) return false;
  GraphDef* g = PickOf(rng, v.graphs);
  if (g->node_size() == 0) return false;
  const int at = static_cast<int>(Below(rng, g->node_size()));
  switch (Below(rng, 3)) {
    case 0:  // a node dropped
      g->mutable_node()->DeleteSubrange(at, 1);
      return true;
    case 1:  // a node duplicated (two nodes, one name)
      *g->add_node() = g->node(at);
      return true;
    default: {  // a node renamed (its consumers dangle)
      g->mutable_node(at)->set_name(g->node(at).name() + "_renamed");
      return true;
    }
  }
}

bool MutateSignatures(View& v, Rng& rng) {
  if (v.meta_graphs.empty()) return false;
  smrt::tfproto::MetaGraphDef* mg = PickOf(rng, v.meta_graphs);
  const size_t kind = Below(rng, 8);
  if (kind == 6) {  // assets: paths out of the directory, missing files
    if (mg->asset_file_def_size() == 0) {
      auto* a = mg->add_asset_file_def();
      a->mutable_tensor_info()->set_name("no_such_asset:0");
    }
    auto* a = mg->mutable_asset_file_def(static_cast<int>(Below(rng, mg->asset_file_def_size())));
    static const char* kPaths[] = {"../../../etc/passwd", "/etc/passwd", "",
                                   "missing.txt",         "a/../../b",   "."};
    a->set_filename(kPaths[Below(rng, 6)]);
    return true;
  }
  if (kind == 7) {  // init-op collections pointing at missing or arbitrary nodes
    static const char* kKeys[] = {"saved_model_main_op", "legacy_init_op", "table_initializer",
                                  "saved_model_assets"};
    auto& c = (*mg->mutable_collection_def())[kKeys[Below(rng, 4)]];
    auto* list = c.mutable_node_list();
    const std::string target = v.nodes.empty() || OneIn(rng, 3)
                                   ? std::string("no_such_node")
                                   : PickOf(rng, v.nodes).node()->name();
    if (list->value_size() > 0 && OneIn(rng, 2)) {
      list->set_value(0, target);
    } else {
      list->add_value(target);
    }
    return true;
  }
  auto* sigs = mg->mutable_signature_def();
  if (sigs->empty()) return false;
  auto it = sigs->begin();
  std::advance(it, Below(rng, sigs->size()));
  smrt::tfproto::SignatureDef& sig = it->second;
  auto* side = OneIn(rng, 2) ? sig.mutable_inputs() : sig.mutable_outputs();
  if (kind == 5) {  // no inputs or outputs at all, or inputs and outputs swapped
    if (OneIn(rng, 2)) {
      side->clear();
    } else {
      std::swap(*sig.mutable_inputs(), *sig.mutable_outputs());
    }
    return true;
  }
  if (side->empty()) {
    (*side)["extra"].set_name("no_such_tensor:0");
    return true;
  }
  auto t = side->begin();
  std::advance(t, Below(rng, side->size()));
  smrt::tfproto::TensorInfo& info = t->second;
  switch (kind) {
    case 0: {  // missing tensors, bad indices
      static const char* kNames[] = {"no_such_tensor:0", "", ":0", "^x", "x:1:2"};
      info.set_name(OneIn(rng, 2)
                        ? std::string(kNames[Below(rng, 5)])
                        : InputNode(info.name()) + ":" + std::to_string(InterestingInt(rng)));
      return true;
    }
    case 1:  // an arbitrary node (feeding or fetching the middle of the graph)
      if (v.nodes.empty()) return false;
      info.set_name(PickOf(rng, v.nodes).node()->name() + ":0");
      return true;
    case 2: info.set_dtype(InterestingDtype(rng)); return true;
    case 3: SetHostileShape(info.mutable_tensor_shape(), rng); return true;
    default: {  // two keys, one tensor
      smrt::tfproto::TensorInfo copy = info;
      (*side)[t->first + "_again"] = copy;
      return true;
    }
  }
}

bool MutateIndex(Input& in, Rng& rng) {
  if (!in.has_index) {
    in.index = SeedIndexRecords(SeedIndex(in.selector));
    in.has_index = true;
  }
  if (in.index.empty()) {
    in.index.emplace_back("", "");  // an index with only a (default) header
    return true;
  }
  const size_t at = Below(rng, in.index.size());
  auto& [key, value] = in.index[at];
  if (key.empty()) {  // the header
    smrt::tfproto::BundleHeaderProto h;
    (void)h.ParseFromString(value);
    switch (Below(rng, 3)) {
      case 0: h.set_num_shards(static_cast<int32_t>(InterestingInt(rng))); break;
      case 1:
        h.set_endianness(smrt::tfproto::BundleHeaderProto::BIG);
        break;
      default:
        h.mutable_version()->set_producer(-1);
        h.mutable_version()->set_min_consumer(1 << 30);
        break;
    }
    value = h.SerializeAsString();
    return true;
  }
  smrt::tfproto::BundleEntryProto e;
  const bool parsed = e.ParseFromString(value);
  switch (Below(rng, 11)) {
    case 0: e.set_dtype(InterestingDtype(rng)); break;
    case 1: SetHostileShape(e.mutable_shape(), rng); break;
    case 2: e.set_shard_id(static_cast<int32_t>(InterestingInt(rng))); break;
    case 3: e.set_offset(InterestingInt(rng)); break;
    case 4:
      e.set_size(OneIn(rng, 2) ? InterestingInt(rng) : e.size() + (OneIn(rng, 2) ? 1 : -1));
      break;
    case 5: e.set_crc32c(e.crc32c() ^ 1); break;
    case 6: {  // a partitioned (sliced) variable, which smrt does not read
      auto* ext = e.add_slices()->add_extent();
      ext->set_start(InterestingInt(rng));
      ext->set_length(InterestingInt(rng));
      break;
    }
    case 7:  // entry dropped: a variable the graph reads is missing
      in.index.erase(in.index.begin() + static_cast<ptrdiff_t>(at));
      return true;
    case 8: {  // the same entry under another key
      std::pair<std::string, std::string> copy(key + "_copy", value);
      in.index.push_back(std::move(copy));
      return true;
    }
    case 9:  // a value that is not a BundleEntryProto
      value = OneIn(rng, 2) ? std::string("\xff\xff\xff", 3) : std::string();
      return true;
    default:  // another entry's place in the data shard
      if (!parsed || in.index.size() < 2) return false;
      {
        smrt::tfproto::BundleEntryProto other;
        (void)other.ParseFromString(in.index[Below(rng, in.index.size())].second);
        e.set_offset(other.offset());
        e.set_size(other.size());
      }
      break;
  }
  value = e.SerializeAsString();
  return true;
}

// ---------------------------------------------------------------------------

size_t Emit(const Input& in, uint8_t* data, size_t size, size_t max_size) {
  const std::string out = Encode(in);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  Input in = Decode(data, size);
  smrt::tfproto::SavedModel sm;
  // A few byte-level mutations keep numbers and names changing in ways the
  // semantic ones do not; an input that no longer parses stays byte-level.
  if (in.pb.empty() || OneIn(rng, 20) || !sm.ParseFromString(in.pb)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  if (OneIn(rng, 64)) in.selector = static_cast<uint8_t>(Below(rng, 256));  // another model's files
  const size_t room =
      max_size > size + 1024 ? std::min<size_t>(max_size - size - 1024, 1 << 16) : 0;
  // Mostly one change per call: libFuzzer stacks calls (-mutate_depth), and a
  // mutant with one hostile change is likelier to get past the checks that
  // come before the code the change is aimed at.
  const size_t dice = Below(rng, 10);
  const int count = dice < 7 ? 1 : dice < 9 ? 2 : 3;
  for (int i = 0, tries = 0; i < count && tries < 16; ++tries) {
    View v(sm);
    bool changed = false;
    switch (Below(rng, 20)) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
      case 5: changed = MutateInputs(v, rng); break;
      case 6:
      case 7:
      case 8: changed = MutateAttrs(v, rng, room); break;
      case 9: changed = MutateShapes(v, rng); break;
      case 10:
      case 11:
      case 12: changed = MutateConst(v, rng, room); break;
      case 13:
      case 14: changed = MutateFunctions(v, rng); break;
      case 15: changed = MutateGraphNodes(v, rng); break;
      case 16:
      case 17: changed = MutateSignatures(v, rng); break;
      default: changed = MutateIndex(in, rng); break;
    }
    if (changed) ++i;
  }
  in.pb = sm.SerializeAsString();
  return Emit(in, data, size, max_size);
}

// Splices B into A: a function, a graph node or a signature of B replaces or
// joins A's (graphs of two models with one name space).
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  Rng rng(seed);
  Input a = Decode(data1, size1);
  Input b = Decode(data2, size2);
  smrt::tfproto::SavedModel sa, sb;
  if (!sa.ParseFromString(a.pb) || !sb.ParseFromString(b.pb) || sa.meta_graphs_size() == 0 ||
      sb.meta_graphs_size() == 0) {
    return 0;
  }
  GraphDef* ga = sa.mutable_meta_graphs(0)->mutable_graph_def();
  const smrt::tfproto::MetaGraphDef& mb = sb.meta_graphs(0);
  switch (Below(rng, 3)) {
    case 0:
      if (mb.graph_def().library().function_size() == 0) return 0;
      *ga->mutable_library()->add_function() = mb.graph_def().library().function(
          static_cast<int>(Below(rng, mb.graph_def().library().function_size())));
      break;
    case 1:
      if (mb.graph_def().node_size() == 0) return 0;
      *ga->add_node() =
          mb.graph_def().node(static_cast<int>(Below(rng, mb.graph_def().node_size())));
      break;
    default:
      if (mb.signature_def().empty()) return 0;
      {
        auto it = mb.signature_def().begin();
        std::advance(it, Below(rng, mb.signature_def().size()));
        (*sa.mutable_meta_graphs(0)->mutable_signature_def())[it->first] = it->second;
      }
      break;
  }
  a.pb = sa.SerializeAsString();
  const std::string bytes = Encode(a);
  if (bytes.size() > max_out_size) return 0;
  std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Input in = Decode(data, size);
  Scratch& s = ScratchFor(SeedIndex(in.selector));
  PrepareIndex(s, in);
  if (!smrt::file::WriteAll(s.dir + "/saved_model.pb", in.pb).ok()) return 0;
  const smrt::LoadOptions options = smrt::fuzz::TightOptions();
  // SMRT_FUZZ_VERBOSE=1: what became of the input (to triage a reproducer).
  static const bool verbose = std::getenv("SMRT_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(
        stderr, "semantic: seed %zu (%s), index %s\n", SeedIndex(in.selector),
        SeedDirs()[SeedIndex(in.selector)].c_str(),
        in.has_index ? std::to_string(in.index.size()).append(" records").c_str() : "the seed's");
  }
  {
    absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(s.dir, options);
    if (verbose) std::fprintf(stderr, "semantic: load: %s\n", model.status().ToString().c_str());
    // Values for the signatures' inputs: bytes of the proto, which the
    // mutations change as a side effect.
    FuzzedDataProvider bytes(reinterpret_cast<const uint8_t*>(in.pb.data()),
                             std::min<size_t>(in.pb.size(), 4096));
    if (model.ok()) smrt::fuzz::RunAll(**model, bytes);
  }
  // SMRT_FUZZ_NO_CHECK=1 leaves CheckModel out, e.g. to look past a known
  // finding of check alone.
  static const bool no_check = std::getenv("SMRT_FUZZ_NO_CHECK") != nullptr;
  if (no_check) return 0;
  absl::StatusOr<smrt::ModelCheck> check = smrt::CheckModel(s.dir, options);
  if (verbose) {
    std::fprintf(stderr, "semantic: check: %s\n",
                 !check.ok()   ? check.status().ToString().c_str()
                 : check->ok() ? "ok"
                               : "problems reported");
  }
  return 0;
}
