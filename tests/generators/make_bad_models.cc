// Writes the hostile-input corpus tests/data/bad/<case>/: SavedModels that are
// malformed on purpose (bad protos, attrs, shapes, graphs, checkpoints,
// assets) or well formed but fed hostile values at run time. Uses smrt's own
// protos and the tests' bundle writer, so it needs no TensorFlow.
//
//   scripts/make_bad_models.sh            # builds this and rewrites tests/data/bad
//
// Every case is small (bytes to a few KB). tests/hostile/corpus_test.cc holds
// one test per case with the error code and message it must produce.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/file.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "smrt/tensor.h"
#include "smrt/tfproto/saved_model.pb.h"
#include "smrt/tfproto/tensor_bundle.pb.h"
#include "testing/bundle_writer.h"

namespace {

namespace fs = std::filesystem;
using smrt::tfproto::AttrValue;
using smrt::tfproto::DataType;
using smrt::tfproto::NodeDef;

void SetType(NodeDef* n, const std::string& attr, DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

void SetShape(NodeDef* n, const std::string& attr, const std::vector<int64_t>& dims,
              bool unknown_rank = false) {
  smrt::tfproto::TensorShapeProto* s = (*n->mutable_attr())[attr].mutable_shape();
  if (unknown_rank) s->set_unknown_rank(true);
  for (int64_t d : dims) s->add_dim()->set_size(d);
}

void SetInt(NodeDef* n, const std::string& attr, int64_t v) { (*n->mutable_attr())[attr].set_i(v); }
void SetString(NodeDef* n, const std::string& attr, const std::string& v) {
  (*n->mutable_attr())[attr].set_s(v);
}
void SetBool(NodeDef* n, const std::string& attr, bool v) { (*n->mutable_attr())[attr].set_b(v); }

smrt::tfproto::TensorProto* SetTensor(NodeDef* n, DataType t, const std::vector<int64_t>& dims) {
  smrt::tfproto::TensorProto* p = (*n->mutable_attr())["value"].mutable_tensor();
  p->set_dtype(t);
  for (int64_t d : dims) p->mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

class ModelBuilder {
 public:
  ModelBuilder() {
    sm_.set_saved_model_schema_version(1);
    mg_ = sm_.add_meta_graphs();
    mg_->mutable_meta_info_def()->add_tags("serve");
    g_ = mg_->mutable_graph_def();
    g_->mutable_versions()->set_producer(1087);
    sig_ = &(*mg_->mutable_signature_def())["serving_default"];
    sig_->set_method_name("tensorflow/serving/predict");
  }

  smrt::tfproto::GraphDef* graph() { return g_; }
  smrt::tfproto::MetaGraphDef* meta_graph() { return mg_; }
  smrt::tfproto::FunctionDefLibrary* library() { return g_->mutable_library(); }

  NodeDef* Node(const std::string& name, const std::string& op,
                const std::vector<std::string>& inputs = {}) {
    NodeDef* n = g_->add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }

  NodeDef* Placeholder(const std::string& name, DataType t, const std::vector<int64_t>& dims,
                       bool unknown_rank = false) {
    NodeDef* n = Node(name, "Placeholder");
    SetType(n, "dtype", t);
    SetShape(n, "shape", dims, unknown_rank);
    smrt::tfproto::TensorInfo& info = (*sig_->mutable_inputs())[name];
    info.set_name(name + ":0");
    info.set_dtype(t);
    if (unknown_rank) {
      info.mutable_tensor_shape()->set_unknown_rank(true);
    } else {
      for (int64_t d : dims) info.mutable_tensor_shape()->add_dim()->set_size(d);
    }
    return n;
  }

  template <typename T>
  NodeDef* Const(const std::string& name, DataType t, const std::vector<int64_t>& dims,
                 const std::vector<T>& values) {
    NodeDef* n = Node(name, "Const");
    SetType(n, "dtype", t);
    smrt::tfproto::TensorProto* p = SetTensor(n, t, dims);
    for (T v : values) {
      if constexpr (std::is_same_v<T, float>) p->add_float_val(v);
      if constexpr (std::is_same_v<T, int32_t>) p->add_int_val(v);
      if constexpr (std::is_same_v<T, int64_t>) p->add_int64_val(v);
      if constexpr (std::is_same_v<T, bool>) p->add_bool_val(v);
    }
    return n;
  }

  NodeDef* StringConst(const std::string& name, const std::string& value) {
    NodeDef* n = Node(name, "Const");
    SetType(n, "dtype", smrt::tfproto::DT_STRING);
    SetTensor(n, smrt::tfproto::DT_STRING, {})->add_string_val(value);
    return n;
  }

  void Output(const std::string& key, const std::string& tensor,
              DataType t = smrt::tfproto::DT_FLOAT) {
    smrt::tfproto::TensorInfo& info = (*sig_->mutable_outputs())[key];
    info.set_name(tensor);
    info.set_dtype(t);
  }

  // The init op TF2 exports name in the __saved_model_init_op signature.
  void InitOp(const std::string& node) {
    auto& sig = (*mg_->mutable_signature_def())["__saved_model_init_op"];
    (*sig.mutable_outputs())["__saved_model_init_op"].set_name(node);
  }

  // Deterministic (map fields sorted), so rerunning the generator rewrites
  // only the cases that changed.
  std::string Bytes() const {
    std::string out;
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    sm_.SerializeToCodedStream(&coded);
    coded.Trim();
    return out;
  }

  void Write(const std::string& dir) const {
    fs::create_directories(dir);
    Check(smrt::file::WriteAll(dir + "/saved_model.pb", Bytes()));
  }

  static void Check(const absl::Status& s) {
    if (!s.ok()) {
      std::fprintf(stderr, "make_bad_models: %s\n", std::string(s.message()).c_str());
      std::exit(1);
    }
  }

 private:
  smrt::tfproto::SavedModel sm_;
  smrt::tfproto::MetaGraphDef* mg_;
  smrt::tfproto::GraphDef* g_;
  smrt::tfproto::SignatureDef* sig_;
};

// y = x * 2: the well-formed base several byte-level cases corrupt.
ModelBuilder Times2() {
  ModelBuilder b;
  b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
  b.Const<float>("two", smrt::tfproto::DT_FLOAT, {}, {2.0f});
  NodeDef* mul = b.Node("y", "Mul", {"x", "two"});
  SetType(mul, "T", smrt::tfproto::DT_FLOAT);
  b.Output("y", "y:0");
  return b;
}

// y = x * w with w = [1, 2] a variable restored from variables/.
// A float [2] resource variable `name` and its read, "<name>/read".
void AddVariable(ModelBuilder& b, const std::string& name) {
  NodeDef* h = b.Node(name, "VarHandleOp");
  SetType(h, "dtype", smrt::tfproto::DT_FLOAT);
  SetShape(h, "shape", {2});
  SetString(h, "shared_name", name);
  NodeDef* r = b.Node(name + "/read", "ReadVariableOp", {name});
  SetType(r, "dtype", smrt::tfproto::DT_FLOAT);
}

ModelBuilder WithVariable() {
  ModelBuilder b;
  b.Placeholder("x", smrt::tfproto::DT_FLOAT, {2});
  AddVariable(b, "w");
  NodeDef* mul = b.Node("y", "Mul", {"x", "w/read"});
  SetType(mul, "T", smrt::tfproto::DT_FLOAT);
  b.Output("y", "y:0");
  return b;
}

smrt::Tensor FloatTensor(std::vector<float> v) {
  smrt::Tensor t = *smrt::Tensor::Create(smrt::DataType::kFloat, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

void WriteVariables(const std::string& dir, int num_shards = 1, int shard = 0) {
  fs::create_directories(dir + "/variables");
  ModelBuilder::Check(smrt::testing::WriteBundle(dir + "/variables/variables",
                                                 {{"w", FloatTensor({1, 2}), shard}}, num_shards));
}

void FlipByte(const std::string& path, int64_t offset_from_start) {
  std::string bytes = *smrt::file::ReadAll(path);
  bytes[static_cast<size_t>(offset_from_start)] ^= 0x5a;
  ModelBuilder::Check(smrt::file::WriteAll(path, bytes));
}

// A unary float op node over `in`.
NodeDef* Unary(ModelBuilder& b, const std::string& name, const std::string& op,
               const std::string& in) {
  NodeDef* n = b.Node(name, op, {in});
  SetType(n, "T", smrt::tfproto::DT_FLOAT);
  return n;
}

using Case = std::function<void(const std::string& dir)>;

std::map<std::string, Case> Cases() {
  std::map<std::string, Case> c;

  // --- saved_model.pb bytes -------------------------------------------------
  c["truncated_pb"] = [](const std::string& dir) {
    std::string bytes = Times2().Bytes();
    fs::create_directories(dir);
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/saved_model.pb", bytes.substr(0, bytes.size() / 2)));
  };
  c["garbage_pb"] = [](const std::string& dir) {
    std::string bytes;
    uint32_t x = 12345;
    for (int i = 0; i < 256; ++i) {
      x = x * 1103515245u + 12345u;
      bytes.push_back(static_cast<char>(x >> 24));
    }
    fs::create_directories(dir);
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/saved_model.pb", bytes));
  };
  c["empty_pb"] = [](const std::string& dir) {
    fs::create_directories(dir);
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/saved_model.pb", ""));
  };

  // --- attrs, Const values, shapes -----------------------------------------
  c["attr_wrong_type"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* cast = b.Node("y", "Cast", {"x"});
    SetType(cast, "SrcT", smrt::tfproto::DT_FLOAT);
    SetString(cast, "DstT", "int32");  // a string where a type belongs
    b.Output("y", "y:0", smrt::tfproto::DT_INT32);
    b.Write(dir);
  };
  c["const_no_value"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* k = b.Node("two", "Const");
    SetType(k, "dtype", smrt::tfproto::DT_FLOAT);
    NodeDef* mul = b.Node("y", "Mul", {"x", "two"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["const_size_mismatch"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {4});
    NodeDef* k = b.Node("w", "Const");
    SetType(k, "dtype", smrt::tfproto::DT_FLOAT);
    SetTensor(k, smrt::tfproto::DT_FLOAT, {4})->set_tensor_content(std::string(12, '\0'));
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["const_too_many_values"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {2});
    b.Const<float>("w", smrt::tfproto::DT_FLOAT, {2}, {1, 2, 3});
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["negative_dim"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Const<float>("w", smrt::tfproto::DT_FLOAT, {-5}, {1});
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["placeholder_bad_dim"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-7});
    Unary(b, "y", "Neg", "x");
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["overflowing_dims"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Const<float>("w", smrt::tfproto::DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}, {1});
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["huge_const_splat"] = [](const std::string& dir) {
    // 20 bytes of proto that would expand to 8 GiB.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Const<float>("w", smrt::tfproto::DT_FLOAT, {int64_t{1} << 31}, {1});
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };

  c["huge_string_splat"] = [](const std::string& dir) {
    // 2 KB of proto: one 2000-byte string repeated 4M times (8 GB).
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {-1});
    NodeDef* w = b.Node("w", "Const");
    SetType(w, "dtype", smrt::tfproto::DT_STRING);
    SetTensor(w, smrt::tfproto::DT_STRING, {int64_t{1} << 22})
        ->add_string_val(std::string(2000, 'a'));
    NodeDef* y = b.Node("y", "StringJoin", {"x", "w"});
    SetInt(y, "N", 2);
    SetString(y, "separator", "");
    b.Output("y", "y:0", smrt::tfproto::DT_STRING);
    b.Write(dir);
  };

  // --- graph structure -----------------------------------------------------
  c["graph_cycle"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* a = b.Node("a", "Add", {"x", "c"});
    SetType(a, "T", smrt::tfproto::DT_FLOAT);
    Unary(b, "c", "Neg", "a");
    b.Output("y", "a:0");
    b.Write(dir);
  };
  c["recursive_function"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    smrt::tfproto::FunctionDef* f = b.library()->add_function();
    f->mutable_signature()->set_name("forever");
    auto* in = f->mutable_signature()->add_input_arg();
    in->set_name("v");
    in->set_type(smrt::tfproto::DT_FLOAT);
    auto* out = f->mutable_signature()->add_output_arg();
    out->set_name("r");
    out->set_type(smrt::tfproto::DT_FLOAT);
    NodeDef* call = f->add_node_def();
    call->set_name("again");
    call->set_op("PartitionedCall");
    call->add_input("v");
    (*call->mutable_attr())["f"].mutable_func()->set_name("forever");
    (*call->mutable_attr())["Tin"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
    (*call->mutable_attr())["Tout"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
    (*f->mutable_ret())["r"] = "again:output:0";
    NodeDef* top = b.Node("y", "PartitionedCall", {"x"});
    *top->mutable_attr() = call->attr();
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["inlining_bomb"] = [](const std::string& dir) {
    // f0 calls f1 twice, f1 calls f2 twice, ... f26: 2^27 inlined calls from
    // a few KB of functions.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    constexpr int kLevels = 27;
    auto call = [](NodeDef* n, const std::string& fn, const std::string& input) {
      n->set_op("PartitionedCall");
      n->add_input(input);
      (*n->mutable_attr())["f"].mutable_func()->set_name(fn);
      (*n->mutable_attr())["Tin"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
      (*n->mutable_attr())["Tout"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
    };
    for (int level = 0; level < kLevels; ++level) {
      smrt::tfproto::FunctionDef* f = b.library()->add_function();
      f->mutable_signature()->set_name("f" + std::to_string(level));
      auto* in = f->mutable_signature()->add_input_arg();
      in->set_name("v");
      in->set_type(smrt::tfproto::DT_FLOAT);
      auto* out = f->mutable_signature()->add_output_arg();
      out->set_name("r");
      out->set_type(smrt::tfproto::DT_FLOAT);
      if (level + 1 == kLevels) {
        NodeDef* n = f->add_node_def();
        n->set_name("n");
        n->set_op("Neg");
        n->add_input("v");
        SetType(n, "T", smrt::tfproto::DT_FLOAT);
        (*f->mutable_ret())["r"] = "n:y:0";
        continue;
      }
      const std::string next = "f" + std::to_string(level + 1);
      NodeDef* a = f->add_node_def();
      a->set_name("a");
      call(a, next, "v");
      NodeDef* c2 = f->add_node_def();
      c2->set_name("b");
      call(c2, next, "a:output:0");
      (*f->mutable_ret())["r"] = "b:output:0";
    }
    call(b.Node("y", "PartitionedCall"), "f0", "x");
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["long_names"] = [](const std::string& dir) {
    // A 5000-byte node name and op name: errors quote both.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Node(std::string(5000, 'n'), std::string(5000, 'O'), {"x"});
    b.Output("y", std::string(5000, 'n') + ":0");
    b.Write(dir);
  };
  c["dangling_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* a = b.Node("y", "Add", {"x", "nowhere:0"});
    SetType(a, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["bad_output_index"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* a = b.Node("y", "Neg", {"x:7"});
    SetType(a, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["duplicate_node_names"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    Unary(b, "y", "Neg", "x");
    Unary(b, "y", "Abs", "x");
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["wrong_input_count"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* a = b.Node("y", "Add", {"x"});  // Add takes two inputs
    SetType(a, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["missing_signature_tensor"] = [](const std::string& dir) {
    ModelBuilder b = Times2();
    b.Output("z", "not_a_node:0");
    b.Write(dir);
  };

  // --- checkpoints ---------------------------------------------------------
  c["good_variables"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    WriteVariables(dir);
  };
  c["missing_shard"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    WriteVariables(dir, 2, 0);
    fs::remove(dir + "/variables/variables.data-00001-of-00002");
  };
  c["extra_shard"] = [](const std::string& dir) {
    // TensorFlow ignores data files the index does not name; so does smrt.
    WithVariable().Write(dir);
    WriteVariables(dir);
    ModelBuilder::Check(
        smrt::file::WriteAll(dir + "/variables/variables.data-00001-of-00002", "junk"));
  };
  c["shard_out_of_range"] = [](const std::string& dir) {
    // A one-shard bundle whose index entry claims shard 3.
    WithVariable().Write(dir);
    WriteVariables(dir);
    smrt::tfproto::BundleHeaderProto header;
    header.set_num_shards(1);
    header.set_endianness(smrt::tfproto::BundleHeaderProto::LITTLE);
    header.mutable_version()->set_producer(1);
    smrt::tfproto::BundleEntryProto entry;
    entry.set_dtype(smrt::tfproto::DT_FLOAT);
    entry.mutable_shape()->add_dim()->set_size(2);
    entry.set_shard_id(3);
    entry.set_size(8);
    absl::StatusOr<std::string> table = smrt::testing::BuildSstable(
        {{"", header.SerializeAsString()}, {"w", entry.SerializeAsString()}});
    ModelBuilder::Check(table.status());
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/variables/variables.index", *table));
  };
  c["data_crc_mismatch"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    WriteVariables(dir);
    FlipByte(dir + "/variables/variables.data-00000-of-00001", 2);
  };
  c["index_crc_mismatch"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    WriteVariables(dir);
    FlipByte(dir + "/variables/variables.index", 3);
  };
  c["index_truncated"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    WriteVariables(dir);
    std::string bytes = *smrt::file::ReadAll(dir + "/variables/variables.index");
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/variables/variables.index",
                                             bytes.substr(0, bytes.size() - 20)));
  };
  c["variable_missing_from_checkpoint"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    fs::create_directories(dir + "/variables");
    ModelBuilder::Check(smrt::testing::WriteBundle(dir + "/variables/variables",
                                                   {{"other", FloatTensor({1, 2}), 0}}, 1));
  };
  // Found by semantic_mutator_fuzzer: a ReadVariableOp whose resource input
  // is a control input. Its shape function reads only the dtype attr, so the
  // kernel was the first to look for input 0, past the end of its inputs.
  c["read_variable_control_input"] = [](const std::string& dir) {
    ModelBuilder b = WithVariable();
    for (NodeDef& n : *b.graph()->mutable_node()) {
      if (n.name() == "w/read") n.set_input(0, "^w");
    }
    b.Write(dir);
    WriteVariables(dir);
  };
  // Found by semantic_mutator_fuzzer: a TF1 restore subgraph whose
  // shape_and_slices constant is not DT_STRING. Finding each variable's
  // checkpoint key read it as strings, and for RestoreV2 output 2 ran past
  // the end of its 64-byte float buffer.
  c["saver_slices_not_strings"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {2});
    NodeDef* w = b.Node("w", "VariableV2");
    SetType(w, "dtype", smrt::tfproto::DT_FLOAT);
    SetShape(w, "shape", {2});
    NodeDef* mul = b.Node("y", "Mul", {"x", "w"});
    SetType(mul, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.StringConst("save/Const", "model");
    NodeDef* names = b.Node("save/RestoreV2/tensor_names", "Const");
    SetType(names, "dtype", smrt::tfproto::DT_STRING);
    smrt::tfproto::TensorProto* p = SetTensor(names, smrt::tfproto::DT_STRING, {3});
    for (const char* key : {"a", "b", "w"}) p->add_string_val(key);
    b.Const<float>("save/RestoreV2/shape_and_slices", smrt::tfproto::DT_FLOAT, {16},
                   std::vector<float>(16, 0.0f));
    NodeDef* restore = b.Node("save/RestoreV2", "RestoreV2",
                              {"save/Const", "save/RestoreV2/tensor_names",
                               "save/RestoreV2/shape_and_slices"});
    for (int i = 0; i < 3; ++i) {
      (*restore->mutable_attr())["dtypes"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
    }
    NodeDef* assign = b.Node("save/Assign", "Assign", {"w", "save/RestoreV2:2"});
    SetType(assign, "T", smrt::tfproto::DT_FLOAT);
    b.Node("save/restore_all", "NoOp", {"^save/Assign"});
    smrt::tfproto::SaverDef* saver = b.meta_graph()->mutable_saver_def();
    saver->set_filename_tensor_name("save/Const:0");
    saver->set_restore_op_name("save/restore_all");
    saver->set_version(smrt::tfproto::SaverDef::V2);
    b.Write(dir);
    WriteVariables(dir);
  };
  // Two variables, so that they are read in parallel at load (intra-op
  // threads >= 2): the second's mismatch must still be reported.
  c["second_variable_wrong_dtype"] = [](const std::string& dir) {
    ModelBuilder b = WithVariable();
    AddVariable(b, "v");
    NodeDef* add = b.Node("z", "AddV2", {"y", "v/read"});
    SetType(add, "T", smrt::tfproto::DT_FLOAT);
    b.Output("z", "z:0");
    b.Write(dir);
    fs::create_directories(dir + "/variables");
    smrt::Tensor t = *smrt::Tensor::Create(smrt::DataType::kInt32, {2});
    ModelBuilder::Check(smrt::testing::WriteBundle(
        dir + "/variables/variables", {{"w", FloatTensor({1, 2}), 0}, {"v", t, 0}}, 1));
  };
  c["variable_wrong_dtype"] = [](const std::string& dir) {
    WithVariable().Write(dir);
    fs::create_directories(dir + "/variables");
    smrt::Tensor t = *smrt::Tensor::Create(smrt::DataType::kInt32, {2});
    ModelBuilder::Check(smrt::testing::WriteBundle(dir + "/variables/variables", {{"w", t, 0}}, 1));
  };

  // --- refused ops and files -----------------------------------------------
  c["read_file_op"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {});
    b.StringConst("path", "/etc/passwd");
    b.Node("contents", "ReadFile", {"path"});
    b.Node("y", "StringJoin", {"x", "contents"});
    SetInt(b.graph()->mutable_node(3), "N", 2);
    b.Output("y", "y:0", smrt::tfproto::DT_STRING);
    b.Write(dir);
  };
  c["write_file_op"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {});
    b.StringConst("path", "/tmp/smrt_was_here");
    b.Node("write", "WriteFile", {"path", "x"});
    b.Node("y", "Identity", {"x", "^write"});
    SetType(b.graph()->mutable_node(3), "T", smrt::tfproto::DT_STRING);
    b.Output("y", "y:0", smrt::tfproto::DT_STRING);
    b.InitOp("write");
    b.Write(dir);
  };
  c["py_func_op"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    NodeDef* p = b.Node("y", "PyFunc", {"x"});
    SetString(p, "token", "pyfunc_0");
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["print_to_file"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {});
    NodeDef* p = b.Node("print", "PrintV2", {"x"});
    SetString(p, "output_stream", "file:///tmp/smrt_print");
    b.Node("y", "Identity", {"x", "^print"});
    SetType(b.graph()->mutable_node(2), "T", smrt::tfproto::DT_STRING);
    b.Output("y", "y:0", smrt::tfproto::DT_STRING);
    b.InitOp("print");
    b.Write(dir);
  };
  c["table_file_outside"] = [](const std::string& dir) {
    // A lookup table initialized from a file the graph names directly.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {-1});
    NodeDef* t = b.Node("table", "HashTableV2");
    SetType(t, "key_dtype", smrt::tfproto::DT_STRING);
    SetType(t, "value_dtype", smrt::tfproto::DT_INT64);
    SetString(t, "shared_name", "table");
    b.StringConst("path", "/etc/hostname");
    NodeDef* init = b.Node("init", "InitializeTableFromTextFileV2", {"table", "path"});
    SetInt(init, "key_index", -2);
    SetInt(init, "value_index", -1);
    b.Const<int64_t>("default", smrt::tfproto::DT_INT64, {}, {-1});
    NodeDef* find = b.Node("y", "LookupTableFindV2", {"table", "x", "default"});
    SetType(find, "Tin", smrt::tfproto::DT_STRING);
    SetType(find, "Tout", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0", smrt::tfproto::DT_INT64);
    b.InitOp("init");
    b.Write(dir);
  };
  c["asset_parent_path"] = [](const std::string& dir) {
    ModelBuilder b = Times2();
    smrt::tfproto::AssetFileDef* a = b.meta_graph()->add_asset_file_def();
    a->set_filename("../../../etc/passwd");
    a->mutable_tensor_info()->set_name("asset_path:0");
    b.Write(dir);
  };
  c["asset_absolute_path"] = [](const std::string& dir) {
    ModelBuilder b = Times2();
    smrt::tfproto::AssetFileDef* a = b.meta_graph()->add_asset_file_def();
    a->set_filename("/etc/passwd");
    a->mutable_tensor_info()->set_name("asset_path:0");
    b.Write(dir);
  };
  c["asset_ok"] = [](const std::string& dir) {
    // Base for the symlink tests, which add the links in a copy at test time
    // (git keeps symlinks, but a link out of the repo is not worth committing).
    ModelBuilder b = Times2();
    smrt::tfproto::AssetFileDef* a = b.meta_graph()->add_asset_file_def();
    a->set_filename("vocab.txt");
    a->mutable_tensor_info()->set_name("asset_path:0");
    b.StringConst("asset_path", "vocab.txt");
    b.Write(dir);
    fs::create_directories(dir + "/assets");
    ModelBuilder::Check(smrt::file::WriteAll(dir + "/assets/vocab.txt", "a\nb\n"));
  };

  // --- run-time values ------------------------------------------------------
  c["gather_indices"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("indices", smrt::tfproto::DT_INT32, {-1});
    b.Const<float>("params", smrt::tfproto::DT_FLOAT, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    b.Const<int32_t>("axis", smrt::tfproto::DT_INT32, {}, {0});
    NodeDef* g = b.Node("y", "GatherV2", {"params", "indices", "axis"});
    SetType(g, "Tparams", smrt::tfproto::DT_FLOAT);
    SetType(g, "Tindices", smrt::tfproto::DT_INT32);
    SetType(g, "Taxis", smrt::tfproto::DT_INT32);
    SetInt(g, "batch_dims", 0);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["gather_nd_indices"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("indices", smrt::tfproto::DT_INT32, {-1, 2});
    b.Const<float>("params", smrt::tfproto::DT_FLOAT, {2, 2}, {0, 1, 2, 3});
    NodeDef* g = b.Node("y", "GatherNd", {"params", "indices"});
    SetType(g, "Tparams", smrt::tfproto::DT_FLOAT);
    SetType(g, "Tindices", smrt::tfproto::DT_INT32);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["one_hot"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("indices", smrt::tfproto::DT_INT32, {-1});
    b.Placeholder("depth", smrt::tfproto::DT_INT32, {});
    b.Const<float>("on", smrt::tfproto::DT_FLOAT, {}, {1});
    b.Const<float>("off", smrt::tfproto::DT_FLOAT, {}, {0});
    NodeDef* o = b.Node("y", "OneHot", {"indices", "depth", "on", "off"});
    SetType(o, "T", smrt::tfproto::DT_FLOAT);
    SetType(o, "TI", smrt::tfproto::DT_INT32);
    SetInt(o, "axis", -1);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["scatter_nd_indices"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("indices", smrt::tfproto::DT_INT32, {-1, 1});
    b.Placeholder("updates", smrt::tfproto::DT_FLOAT, {-1});
    b.Const<int32_t>("shape", smrt::tfproto::DT_INT32, {1}, {4});
    NodeDef* s = b.Node("y", "ScatterNd", {"indices", "updates", "shape"});
    SetType(s, "T", smrt::tfproto::DT_FLOAT);
    SetType(s, "Tindices", smrt::tfproto::DT_INT32);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["strided_slice"] = [](const std::string& dir) {
    // begin/end/strides come from inputs, so the test drives the edge cases.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1, -1});
    b.Placeholder("begin", smrt::tfproto::DT_INT64, {2});
    b.Placeholder("end", smrt::tfproto::DT_INT64, {2});
    b.Placeholder("strides", smrt::tfproto::DT_INT64, {2});
    NodeDef* s = b.Node("y", "StridedSlice", {"x", "begin", "end", "strides"});
    SetType(s, "T", smrt::tfproto::DT_FLOAT);
    SetType(s, "Index", smrt::tfproto::DT_INT64);
    for (const char* m : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask"}) SetInt(s, m, 0);
    SetInt(s, "shrink_axis_mask", 2);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["reshape_impossible"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {2, 3});
    b.Const<int32_t>("shape", smrt::tfproto::DT_INT32, {2}, {4, -1});
    NodeDef* r = b.Node("y", "Reshape", {"x", "shape"});
    SetType(r, "T", smrt::tfproto::DT_FLOAT);
    SetType(r, "Tshape", smrt::tfproto::DT_INT32);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["reshape_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Placeholder("shape", smrt::tfproto::DT_INT64, {-1});
    NodeDef* r = b.Node("y", "Reshape", {"x", "shape"});
    SetType(r, "T", smrt::tfproto::DT_FLOAT);
    SetType(r, "Tshape", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["fill_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("dims", smrt::tfproto::DT_INT64, {-1});
    b.Const<float>("value", smrt::tfproto::DT_FLOAT, {}, {1});
    NodeDef* f = b.Node("y", "Fill", {"dims", "value"});
    SetType(f, "T", smrt::tfproto::DT_FLOAT);
    SetType(f, "index_type", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["tile_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1, -1});
    b.Placeholder("multiples", smrt::tfproto::DT_INT64, {2});
    NodeDef* t = b.Node("y", "Tile", {"x", "multiples"});
    SetType(t, "T", smrt::tfproto::DT_FLOAT);
    SetType(t, "Tmultiples", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["string_tile_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_STRING, {-1});
    b.Placeholder("multiples", smrt::tfproto::DT_INT64, {1});
    NodeDef* t = b.Node("y", "Tile", {"x", "multiples"});
    SetType(t, "T", smrt::tfproto::DT_STRING);
    SetType(t, "Tmultiples", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0", smrt::tfproto::DT_STRING);
    b.Write(dir);
  };
  c["range_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("limit", smrt::tfproto::DT_INT64, {});
    b.Placeholder("delta", smrt::tfproto::DT_INT64, {});
    b.Const<int64_t>("start", smrt::tfproto::DT_INT64, {}, {0});
    NodeDef* r = b.Node("y", "Range", {"start", "limit", "delta"});
    SetType(r, "Tidx", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0", smrt::tfproto::DT_INT64);
    b.Write(dir);
  };
  c["broadcast_to_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    b.Placeholder("shape", smrt::tfproto::DT_INT64, {-1});
    NodeDef* t = b.Node("y", "BroadcastTo", {"x", "shape"});
    SetType(t, "T", smrt::tfproto::DT_FLOAT);
    SetType(t, "Tidx", smrt::tfproto::DT_INT64);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["numerics"] = [](const std::string& dir) {
    // y = log(x) + 1: NaN for x < 0, -Inf for x = 0.
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1});
    Unary(b, "log", "Log", "x");
    b.Const<float>("one", smrt::tfproto::DT_FLOAT, {}, {1});
    NodeDef* a = b.Node("y", "AddV2", {"log", "one"});
    SetType(a, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["zero_size"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {-1, 3});
    b.Const<float>("w", smrt::tfproto::DT_FLOAT, {3, 2}, {1, 2, 3, 4, 5, 6});
    NodeDef* m = b.Node("mm", "MatMul", {"x", "w"});
    SetType(m, "T", smrt::tfproto::DT_FLOAT);
    SetBool(m, "transpose_a", false);
    SetBool(m, "transpose_b", false);
    b.Const<int32_t>("axis", smrt::tfproto::DT_INT32, {}, {0});
    NodeDef* s = b.Node("y", "Sum", {"mm", "axis"});
    SetType(s, "T", smrt::tfproto::DT_FLOAT);
    SetType(s, "Tidx", smrt::tfproto::DT_INT32);
    SetBool(s, "keep_dims", false);
    NodeDef* mx = b.Node("z", "Max", {"mm", "axis"});
    *mx->mutable_attr() = s->attr();
    b.Output("y", "y:0");
    b.Output("z", "z:0");
    b.Output("mm", "mm:0");
    b.Write(dir);
  };
  // A TF1 Switch left with its data input only (no pred).
  c["switch_one_input"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {2});
    NodeDef* s = b.Node("s", "Switch", {"x"});
    SetType(s, "T", smrt::tfproto::DT_FLOAT);
    NodeDef* y = b.Node("y", "Identity", {"s:1"});
    SetType(y, "T", smrt::tfproto::DT_FLOAT);
    b.Output("y", "y:0");
    b.Write(dir);
  };
  c["while_forever"] = [](const std::string& dir) {
    ModelBuilder b;
    b.Placeholder("x", smrt::tfproto::DT_FLOAT, {});
    auto add_fn = [&](const std::string& name, bool is_cond) {
      smrt::tfproto::FunctionDef* f = b.library()->add_function();
      f->mutable_signature()->set_name(name);
      auto* in = f->mutable_signature()->add_input_arg();
      in->set_name("v");
      in->set_type(smrt::tfproto::DT_FLOAT);
      auto* out = f->mutable_signature()->add_output_arg();
      out->set_name("r");
      out->set_type(is_cond ? smrt::tfproto::DT_BOOL : smrt::tfproto::DT_FLOAT);
      NodeDef* n = f->add_node_def();
      if (is_cond) {
        n->set_name("t");
        n->set_op("Const");
        SetType(n, "dtype", smrt::tfproto::DT_BOOL);
        SetTensor(n, smrt::tfproto::DT_BOOL, {})->add_bool_val(true);
        (*f->mutable_ret())["r"] = "t:output:0";
      } else {
        n->set_name("n");
        n->set_op("Neg");
        n->add_input("v");
        SetType(n, "T", smrt::tfproto::DT_FLOAT);
        (*f->mutable_ret())["r"] = "n:y:0";
      }
    };
    add_fn("cond", true);
    add_fn("body", false);
    NodeDef* w = b.Node("y", "StatelessWhile", {"x"});
    (*w->mutable_attr())["T"].mutable_list()->add_type(smrt::tfproto::DT_FLOAT);
    (*w->mutable_attr())["cond"].mutable_func()->set_name("cond");
    (*w->mutable_attr())["body"].mutable_func()->set_name("body");
    b.Output("y", "y:0");
    b.Write(dir);
  };
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR (normally tests/data/bad)\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  for (const auto& [name, make] : Cases()) {
    fs::remove_all(out + "/" + name);
    make(out + "/" + name);
    std::printf("%s\n", name.c_str());
  }
  return 0;
}
