#include "smrt/show_command.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cli_support.h"
#include "smrt/flags.h"
#include "smrt/memory_report.h"
#include "smrt/model.h"
#include "smrt/tfproto/saved_model.pb.h"

namespace smrt::cli {
namespace {

using loader::TagSet;

std::string DtypeName(int dtype) {
  if (!tfproto::DataType_IsValid(dtype)) return absl::StrCat("DT_UNKNOWN_", dtype);
  return tfproto::DataType_Name(static_cast<tfproto::DataType>(dtype));
}

// saved_model_cli's shape format: "(-1, 1)", "()" for scalars, "unknown_rank".
std::string ShapeText(const tfproto::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown_rank";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) dims.push_back(absl::StrCat(d.size()));
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

template <typename Map>
std::vector<std::string> SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : map) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys;
}

void PrintTensorInfo(const tfproto::TensorInfo& info, const std::string& pad, std::ostream& out) {
  out << pad << "    dtype: " << DtypeName(info.dtype()) << "\n";
  out << pad << "    shape: " << ShapeText(info.tensor_shape()) << "\n";
  out << pad << "    name: " << info.name() << "\n";
}

void PrintSignature(const tfproto::SignatureDef& sig, int indent, std::ostream& out) {
  const std::string pad(2 * indent, ' ');
  out << pad << "The given SavedModel SignatureDef contains the following input(s):\n";
  for (const std::string& key : SortedKeys(sig.inputs())) {
    out << pad << "  inputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(sig.inputs().at(key), pad + "  ", out);
  }
  out << pad << "The given SavedModel SignatureDef contains the following output(s):\n";
  for (const std::string& key : SortedKeys(sig.outputs())) {
    out << pad << "  outputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(sig.outputs().at(key), pad + "  ", out);
  }
  out << pad << "Method name is: " << sig.method_name() << "\n";
}

absl::StatusOr<const tfproto::SignatureDef*> FindSignature(const tfproto::MetaGraphDef& mg,
                                                           const std::string& key) {
  auto it = mg.signature_def().find(key);
  if (it == mg.signature_def().end()) {
    std::vector<std::string> keys = SortedKeys(mg.signature_def());
    keys.erase(std::remove(keys.begin(), keys.end(), "__saved_model_init_op"), keys.end());
    if (keys.empty()) {  // the init op is no signature to run
      return absl::NotFoundError(absl::StrCat(
          "no SignatureDef '", key, "': the SavedModel has no signatures (export with "
          "tf.saved_model.save(obj, dir, signatures=...) or, in TF1, a SignatureDef)"));
    }
    return absl::NotFoundError(absl::StrCat(
        "no SignatureDef '", key, "'; the MetaGraphDef has: ", absl::StrJoin(keys, ", ")));
  }
  return &it->second;
}

// Op types used by the graph and the library functions it reaches (through
// call ops or function-named ops), excluding the function names themselves:
// TensorFlow's ops_used_by_graph_def.
std::set<std::string> OpsUsed(const tfproto::GraphDef& graph) {
  std::map<std::string, const tfproto::FunctionDef*> functions;
  for (const auto& f : graph.library().function()) functions[f.signature().name()] = &f;
  std::set<std::string> used;
  std::vector<const tfproto::FunctionDef*> pending;
  auto mark = [&](const std::string& op) {
    auto f = functions.find(op);
    if (!used.count(op) && f != functions.end()) pending.push_back(f->second);
    used.insert(op);
  };
  auto process = [&](const tfproto::NodeDef& n) {
    mark(n.op());
    if (n.op() == "PartitionedCall" || n.op() == "StatefulPartitionedCall") {
      auto f = n.attr().find("f");
      if (f != n.attr().end()) mark(f->second.func().name());
    }
  };
  for (const auto& n : graph.node()) process(n);
  while (!pending.empty()) {
    const tfproto::FunctionDef* f = pending.back();
    pending.pop_back();
    for (const auto& n : f->node_def()) process(n);
  }
  std::set<std::string> ops;
  for (const std::string& op : used) {
    if (!functions.count(op)) ops.insert(op);
  }
  return ops;
}

// --- `show --all`'s "Concrete Functions", as saved_model_cli prints them
// from tf.saved_model.load: the functions among the root object's children.

// Python's repr of a str: '...' (or "..." when it holds ' and no ").
std::string PyRepr(const std::string& s) {
  const char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos
                         ? '"'
                         : '\'';
  std::string out(1, quote);
  for (char c : s) {
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + quote;
}

// tf.DType's name: tf.float32, tf.int64, tf.string, ...
std::string PyDtype(int dtype) {
  switch (dtype) {
    case tfproto::DT_FLOAT: return "tf.float32";
    case tfproto::DT_DOUBLE: return "tf.float64";
    case tfproto::DT_HALF: return "tf.float16";
    default: break;
  }
  std::string name = DtypeName(dtype);
  if (absl::StartsWith(name, "DT_")) name = name.substr(3);
  return absl::StrCat("tf.", absl::AsciiStrToLower(name));
}

// TensorShape's repr inside a TensorSpec: "(None, 8)", "(5,)", "()", "<unknown>".
std::string PyShape(const tfproto::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) {
    dims.push_back(d.size() < 0 ? "None" : absl::StrCat(d.size()));
  }
  return absl::StrCat("(", absl::StrJoin(dims, ", "), dims.size() == 1 ? ",)" : ")");
}

std::string PyTensorSpec(const tfproto::TensorSpecProto& spec) {
  return absl::StrCat("TensorSpec(shape=", PyShape(spec.shape()), ", dtype=", PyDtype(spec.dtype()),
                      ", name=", spec.name().empty() ? "None" : PyRepr(spec.name()), ")");
}

// str() of a decoded StructuredValue (inside a list, strings as repr).
std::string PyStr(const tfproto::StructuredValue& v, bool quote_strings) {
  switch (v.kind_case()) {
    case tfproto::StructuredValue::kNoneValue: return "None";
    case tfproto::StructuredValue::kBoolValue: return v.bool_value() ? "True" : "False";
    case tfproto::StructuredValue::kInt64Value: return absl::StrCat(v.int64_value());
    case tfproto::StructuredValue::kFloat64Value: {
      std::string text = absl::StrCat(v.float64_value());  // Python writes 1.0, not 1
      if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
      return text;
    }
    case tfproto::StructuredValue::kStringValue:
      return quote_strings ? PyRepr(v.string_value()) : v.string_value();
    case tfproto::StructuredValue::kTensorSpecValue: return PyTensorSpec(v.tensor_spec_value());
    case tfproto::StructuredValue::kTensorDtypeValue:
      return absl::StrCat("<dtype: '", PyDtype(v.tensor_dtype_value()).substr(3), "'>");
    case tfproto::StructuredValue::kTensorShapeValue: {
      if (v.tensor_shape_value().unknown_rank()) return "<unknown>";
      return PyShape(v.tensor_shape_value());
    }
    case tfproto::StructuredValue::kListValue:
    case tfproto::StructuredValue::kTupleValue: {
      const bool list = v.has_list_value();
      const auto& values = list ? v.list_value().values() : v.tuple_value().values();
      std::vector<std::string> parts;
      for (const auto& x : values) parts.push_back(PyStr(x, true));
      return absl::StrCat(list ? "[" : "(", absl::StrJoin(parts, ", "),
                          !list && parts.size() == 1 ? ",)" : list ? "]" : ")");
    }
    case tfproto::StructuredValue::kDictValue: {
      std::vector<std::string> parts;
      for (const std::string& k : SortedKeys(v.dict_value().fields())) {
        parts.push_back(absl::StrCat(PyRepr(k), ": ", PyStr(v.dict_value().fields().at(k), true)));
      }
      return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
    }
    default: return "?";
  }
}

std::string PyTypeName(const tfproto::StructuredValue& v) {
  switch (v.kind_case()) {
    case tfproto::StructuredValue::kNoneValue: return "NoneType";
    case tfproto::StructuredValue::kBoolValue: return "bool";
    case tfproto::StructuredValue::kInt64Value: return "int";
    case tfproto::StructuredValue::kFloat64Value: return "float";
    case tfproto::StructuredValue::kTensorDtypeValue: return "DType";
    case tfproto::StructuredValue::kTensorShapeValue: return "TensorShape";
    case tfproto::StructuredValue::kTypeSpecValue: return "TypeSpec";
    case tfproto::StructuredValue::kBoundedTensorSpecValue: return "BoundedTensorSpec";
    default: return "object";
  }
}

// saved_model_cli's _print_args at indent 4. Its "Value: [a, b, \b\b]" is
// printed as a terminal shows it: "Value: [a, b]".
void PrintArgs(const std::vector<const tfproto::StructuredValue*>& args, const char* kind,
               std::ostream& out) {
  const std::string pad(8, ' ');
  for (size_t i = 0; i < args.size(); ++i) {
    const tfproto::StructuredValue& v = *args[i];
    out << pad << kind << " #" << i + 1 << "\n";
    switch (v.kind_case()) {
      case tfproto::StructuredValue::kStringValue:
        out << pad << "  " << v.string_value() << "\n";
        break;
      case tfproto::StructuredValue::kTensorSpecValue:
        out << pad << "  " << (v.tensor_spec_value().name().empty() ? "None"
                                                                      : v.tensor_spec_value().name())
            << ": " << PyTensorSpec(v.tensor_spec_value()) << "\n";
        break;
      case tfproto::StructuredValue::kListValue:
      case tfproto::StructuredValue::kTupleValue: {
        const bool list = v.has_list_value();
        const auto& values = list ? v.list_value().values() : v.tuple_value().values();
        std::vector<std::string> parts;
        for (const auto& x : values) parts.push_back(PyStr(x, true));
        out << pad << "  DType: " << (list ? "list" : "tuple") << "\n"
            << pad << "  Value: [" << absl::StrJoin(parts, ", ") << "]\n";
        break;
      }
      case tfproto::StructuredValue::kDictValue: {
        std::vector<std::string> parts;
        for (const std::string& k : SortedKeys(v.dict_value().fields())) {
          parts.push_back(absl::StrCat("'", k, "': ", PyStr(v.dict_value().fields().at(k), true)));
        }
        out << pad << "  DType: dict\n" << pad << "  Value: {" << absl::StrJoin(parts, ", ")
            << "}\n";
        break;
      }
      default:
        out << pad << "  DType: " << PyTypeName(v) << "\n"
            << pad << "  Value: " << PyStr(v, false) << "\n";
    }
  }
}

// The order tf.saved_model.load creates the library's functions in
// (function_deserialization._sort_function_defs: a topological sort, a
// stack of the ready ones), which gives each its new, increasing uid: the
// order saved_model_cli's sort by name sees among one function's options.
std::map<std::string, int> LoadOrder(const tfproto::FunctionDefLibrary& library) {
  std::set<std::string> names;
  for (const auto& f : library.function()) names.insert(f.signature().name());
  std::map<std::string, std::vector<std::string>> edges;
  std::map<std::string, int> in_count;
  for (const auto& f : library.function()) {
    std::set<std::string> deps;
    for (const auto& n : f.node_def()) {
      if (names.count(n.op())) {
        deps.insert(n.op());
        continue;
      }
      for (const auto& [k, a] : n.attr()) {
        if (a.has_func()) deps.insert(a.func().name());
        if (a.has_list()) {
          for (const auto& fn : a.list().func()) deps.insert(fn.name());
        }
      }
    }
    for (const std::string& d : deps) {
      edges[d].push_back(f.signature().name());
      ++in_count[f.signature().name()];
    }
  }
  std::vector<std::string> ready;
  for (const auto& f : library.function()) {
    if (in_count[f.signature().name()] == 0) ready.push_back(f.signature().name());
  }
  std::map<std::string, int> order;
  while (!ready.empty()) {
    std::string node = ready.back();
    ready.pop_back();
    order.emplace(node, static_cast<int>(order.size()));
    for (const std::string& dest : edges[node]) {
      if (--in_count[dest] == 0) ready.push_back(dest);
    }
  }
  return order;
}

// "__inference_<name>_<uid>" -> "<name>" (function_deserialization's
// _clean_function_name).
std::string CleanFunctionName(const std::string& name) {
  constexpr absl::string_view kPrefix = "__inference_";
  size_t underscore = name.rfind('_');
  if (!absl::StartsWith(name, kPrefix) || underscore == std::string::npos ||
      underscore + 1 == name.size() ||
      !std::all_of(name.begin() + underscore + 1, name.end(), absl::ascii_isdigit)) {
    return name;
  }
  return name.substr(kPrefix.size(), underscore - kPrefix.size());
}

void PrintConcreteFunctions(const tfproto::SavedModel& model, std::ostream& out) {
  const tfproto::MetaGraphDef* mg = nullptr;
  for (const auto& m : model.meta_graphs()) {
    if (m.has_object_graph_def() && mg == nullptr) mg = &m;
  }
  if (mg == nullptr || mg->object_graph_def().nodes_size() == 0) return;
  const tfproto::SavedObjectGraph& graph = mg->object_graph_def();
  out << "\nConcrete Functions:";
  const std::map<std::string, int> order = LoadOrder(mg->graph_def().library());
  std::vector<std::pair<std::string, int>> children;
  for (const auto& c : graph.nodes(0).children()) children.emplace_back(c.local_name(), c.node_id());
  std::sort(children.begin(), children.end());
  for (const auto& [name, id] : children) {
    if (id < 0 || id >= graph.nodes_size()) continue;
    const tfproto::SavedObject& node = graph.nodes(id);
    std::vector<std::string> functions;
    std::vector<std::string> keywords;  // a bare concrete function's fallback
    if (node.has_function()) {
      functions.assign(node.function().concrete_functions().begin(),
                       node.function().concrete_functions().end());
    } else if (node.has_bare_concrete_function()) {
      functions.push_back(node.bare_concrete_function().concrete_function_name());
      keywords.assign(node.bare_concrete_function().argument_keywords().begin(),
                      node.bare_concrete_function().argument_keywords().end());
    } else {
      continue;
    }
    out << "\n  Function Name: '" << name << "'\n";
    auto key = [&](const std::string& f) {
      auto it = order.find(f);
      return std::make_pair(CleanFunctionName(f), it == order.end() ? -1 : it->second);
    };
    std::sort(functions.begin(), functions.end(),
              [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
    for (size_t i = 0; i < functions.size(); ++i) {
      std::vector<const tfproto::StructuredValue*> args, kwargs;
      auto it = graph.concrete_functions().find(functions[i]);
      tfproto::StructuredValue keyword_values;
      if (it != graph.concrete_functions().end() &&
          it->second.canonicalized_input_signature().has_tuple_value() &&
          it->second.canonicalized_input_signature().tuple_value().values_size() == 2) {
        const auto& sig = it->second.canonicalized_input_signature().tuple_value();
        if (sig.values(0).has_tuple_value()) {
          for (const auto& a : sig.values(0).tuple_value().values()) args.push_back(&a);
        }
        if (sig.values(1).has_dict_value()) {
          // Iterating a dict gives its keys.
          for (const std::string& k : SortedKeys(sig.values(1).dict_value().fields())) {
            keyword_values.mutable_list_value()->add_values()->set_string_value(k);
          }
          for (const auto& k : keyword_values.list_value().values()) kwargs.push_back(&k);
        }
      } else {
        for (const std::string& k : keywords) {
          keyword_values.mutable_list_value()->add_values()->set_string_value(k);
        }
        for (const auto& k : keyword_values.list_value().values()) args.push_back(&k);
      }
      if (!args.empty()) {
        out << "    Option #" << i + 1 << "\n      Callable with:\n";
        PrintArgs(args, "Argument", out);
      }
      if (!kwargs.empty()) PrintArgs(kwargs, "Named Argument", out);
    }
  }
}

void PrintAll(const tfproto::SavedModel& model, std::ostream& out) {
  std::vector<const tfproto::MetaGraphDef*> graphs;
  for (const auto& mg : model.meta_graphs()) graphs.push_back(&mg);
  auto tags_of = [](const tfproto::MetaGraphDef* mg) {
    const auto& t = mg->meta_info_def().tags();
    return std::vector<std::string>(t.begin(), t.end());
  };
  std::stable_sort(graphs.begin(), graphs.end(),
                   [&](auto* a, auto* b) { return tags_of(a) < tags_of(b); });
  for (const auto* mg : graphs) {
    std::vector<std::string> tags = tags_of(mg);
    out << "\nMetaGraphDef with tag-set: '" << absl::StrJoin(tags, ", ")
        << "' contains the following SignatureDefs:\n";
    for (const std::string& key : SortedKeys(mg->signature_def())) {
      out << "\nsignature_def['" << key << "']:\n";
      PrintSignature(mg->signature_def().at(key), 1, out);
    }
    std::vector<std::string> quoted_tags;
    for (const auto& t : tags) quoted_tags.push_back(absl::StrCat("'", t, "'"));
    std::vector<std::string> quoted_ops;
    for (const auto& op : OpsUsed(mg->graph_def())) {
      quoted_ops.push_back(absl::StrCat("'", op, "'"));
    }
    out << "The MetaGraph with tag set [" << absl::StrJoin(quoted_tags, ", ")
        << "] contains the following ops: {" << absl::StrJoin(quoted_ops, ", ") << "}\n";
  }
  PrintConcreteFunctions(model, out);
}

void PrintVariables(const loader::SavedModelBundle& bundle, std::ostream& out) {
  if (!bundle.variables) {
    out << "The given SavedModel has no variables.\n";
    return;
  }
  const auto& entries = bundle.variables->entries();
  int64_t total = 0;
  for (const auto& e : entries) total += e.size;
  out << "The given SavedModel has " << entries.size() << " checkpoint tensor(s), "
      << total << " bytes in " << bundle.variables->num_shards() << " shard(s):\n";
  for (const auto& e : entries) {
    out << "  " << e.key << "\n"
        << "      dtype: " << DtypeName(e.tf_dtype) << "\n"
        << "      shape: " << ShapeToString(e.shape) << "\n"
        << "      bytes: " << e.size << (e.sliced ? " (partitioned slices)" : "") << "\n";
  }
}

void PrintAssets(const loader::SavedModelBundle& bundle, std::ostream& out) {
  if (bundle.assets.empty()) {
    out << "The given SavedModel has no assets.\n";
  } else {
    out << "The given SavedModel has " << bundle.assets.size() << " asset(s):\n";
    for (const auto& a : bundle.assets) {
      absl::StatusOr<uint64_t> size = file::Size(a.path);
      out << "  " << a.filename << "\n"
          << "      tensor: " << a.tensor_name << "\n"
          << "      path: " << a.path << "\n"
          << "      bytes: "
          << (a.exists && size.ok() ? absl::StrCat(*size) : "missing (TensorFlow loads it anyway)")
          << "\n";
    }
  }
  if (!bundle.extra_assets.empty()) {
    out << "assets.extra/ (not read by the graph):\n";
    for (const auto& name : bundle.extra_assets) out << "  " << name << "\n";
  }
}

// What the graph passes did to each signature: every fusion made and every
// candidate left unfused, with the reason, then the pass log.
absl::Status PrintFusions(const std::string& dir, const LoadOptions& options,
                          std::ostream& out) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, options);
  if (!model.ok()) return model.status();
  for (const std::string& key : (*model)->signature_keys()) {
    absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, key);
    if (!report.ok()) return report.status();
    int fused = 0;
    for (const passes::FusionRecord& r : *report->fusions) fused += r.fused;
    out << "signature '" << key << "': " << fused << " fusions, "
        << report->fusions->size() - fused << " candidates left unfused\n";
    for (bool made : {true, false}) {
      for (const passes::FusionRecord& r : *report->fusions) {
        if (r.fused != made) continue;
        out << "  " << (made ? "fused    " : "unfused  ") << r.pattern << " at '" << r.node
            << "' (" << r.pass << ")";
        if (!made) out << ": " << r.reason;
        out << "\n";
      }
    }
    out << "  passes:\n";
    for (const std::string& line : *report->log) out << "    " << line << "\n";
  }
  return absl::OkStatus();
}

// Weight bytes and the planned activation peak of each signature (or the one
// --signature_def names) for inputs at the batch size.
absl::Status PrintMemory(const std::string& dir, const LoadOptions& options, int64_t batch,
                         std::ostream& out) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, options);
  if (!model.ok()) return model.status();
  for (const SignatureMemory& m : PlanSignatures(**model, (*model)->signature_keys(), batch)) {
    out << "signature '" << m.key << "' at batch " << m.batch << ":\n";
    std::vector<std::string> inputs;
    for (const auto& [name, shape] : m.input_shapes) {
      inputs.push_back(absl::StrCat(name, " ", ShapeToString(shape)));
    }
    out << "  inputs: " << absl::StrJoin(inputs, ", ") << "\n";
    if (!m.error.empty()) {
      out << "  not planned: " << m.error << "\n";
      continue;
    }
    const MemoryPlan& p = m.plan;
    out << "  weights: " << ByteCount(p.weight_bytes) << ", " << ByteCount(p.mapped_weight_bytes)
        << " of them mapped from the checkpoint\n"
        << "  activation peak: " << ByteCount(p.peak_bytes) << ", one arena for "
        << p.tensors.size() << " planned tensors\n"
        << "  naive sum: " << ByteCount(p.naive_bytes) << ", each tensor in its own block\n"
        << "  unplanned tensors: " << p.unplanned.size();
    if (!p.unplanned.empty()) {
      std::vector<std::string> first(p.unplanned.begin(),
                                     p.unplanned.begin() + std::min<size_t>(p.unplanned.size(), 5));
      out << " (size known only at run time: " << absl::StrJoin(first, ", ")
          << (p.unplanned.size() > first.size() ? ", ..." : "") << ")";
    }
    out << "\n  predicted: " << ByteCount(m.predicted_bytes())
        << " (weights + activation peak; feeds, outputs, kernel scratch and unplanned tensors extra)\n";
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunShow(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir", "tag_set", "signature_def", "batch", "precision", "quantization"};
  spec.switches = {"all", "variables", "assets", "fusions", "memory"};
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  std::optional<std::string> dir = flags->Get("dir");
  if (!dir) return absl::InvalidArgumentError("--dir is required");
  // A TensorFlow Serving base path shows its highest version, as Load reads it.
  absl::StatusOr<std::string> version = loader::ResolveModelVersion(*dir, *Env::Default());
  if (!version.ok()) return version.status();
  dir = *version;

  absl::StatusOr<tfproto::SavedModel> model = loader::ReadSavedModelProto(*dir);
  if (!model.ok()) return model.status();

  if (flags->Switch("all")) {
    PrintAll(*model, out);
    return absl::OkStatus();
  }
  if (flags->Has("batch") && !flags->Switch("memory")) {
    return absl::InvalidArgumentError("--batch goes with --memory");
  }
  for (const char* flag : {"precision", "quantization"}) {
    if (flags->Has(flag) && !flags->Switch("fusions") && !flags->Switch("memory")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " goes with --fusions or --memory"));
    }
  }
  if (flags->Switch("fusions") || flags->Switch("memory")) {
    LoadOptions options;
    options.tags.clear();
    for (const std::string& t : loader::ParseTagSet(flags->Get("tag_set").value_or("serve"))) {
      options.tags.push_back(t);
    }
    if (std::optional<std::string> s = flags->Get("signature_def")) options.signatures = {*s};
    if (std::optional<std::string> p = flags->Get("precision")) options.precision = *p;
    if (std::optional<std::string> q = flags->Get("quantization")) options.quantization = *q;
    if (flags->Switch("fusions")) {
      if (absl::Status s = PrintFusions(*dir, options, out); !s.ok()) return s;
    }
    if (!flags->Switch("memory")) return absl::OkStatus();
    int64_t batch = 1;
    if (std::optional<std::string> b = flags->Get("batch");
        b && (!absl::SimpleAtoi(*b, &batch) || batch < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--batch expects an integer >= 1, got '", *b, "'"));
    }
    return PrintMemory(*dir, options, batch, out);
  }

  std::optional<std::string> tag_text = flags->Get("tag_set");
  std::optional<std::string> sig_key = flags->Get("signature_def");
  bool wants_bundle = flags->Switch("variables") || flags->Switch("assets");
  if (!tag_text && !sig_key && !wants_bundle) {
    out << "The given SavedModel contains the following tag-sets:\n";
    std::vector<TagSet> sets = loader::TagSets(*model);
    std::sort(sets.begin(), sets.end());
    for (const TagSet& t : sets) out << loader::TagSetToString(t) << "\n";
    return absl::OkStatus();
  }
  TagSet tags = loader::ParseTagSet(tag_text.value_or("serve"));

  if (wants_bundle) {
    loader::BundleOptions options;
    options.tags = tags;
    absl::StatusOr<std::unique_ptr<loader::SavedModelBundle>> bundle =
        loader::LoadSavedModelBundle(*dir, options);
    if (!bundle.ok()) return bundle.status();
    if (flags->Switch("variables")) PrintVariables(**bundle, out);
    if (flags->Switch("assets")) PrintAssets(**bundle, out);
    return absl::OkStatus();
  }

  absl::StatusOr<const tfproto::MetaGraphDef*> mg = loader::SelectMetaGraph(*model, tags, *dir);
  if (!mg.ok()) return mg.status();
  if (sig_key) {
    absl::StatusOr<const tfproto::SignatureDef*> sig = FindSignature(**mg, *sig_key);
    if (!sig.ok()) return sig.status();
    PrintSignature(**sig, 0, out);
    return absl::OkStatus();
  }
  out << "The given SavedModel MetaGraphDef contains SignatureDefs with the following "
         "keys:\n";
  for (const std::string& key : SortedKeys((*mg)->signature_def())) {
    out << "SignatureDef key: \"" << key << "\"\n";
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
