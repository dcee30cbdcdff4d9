#include "loader/tensor_bundle_reader.h"

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/crc32c.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "loader/sstable_reader.h"
#include "smrt/tfproto/tensor_bundle.pb.h"
#include "smrt/tfproto/trackable_object_graph.pb.h"
#include "testing/bundle_writer.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::loader {
namespace {

namespace fs = std::filesystem;
using testing::BundleTensor;
using testing::MessageHas;
using testing::WriteBundle;

template <typename T>
Tensor Make(DataType dtype, Shape shape, const std::vector<T>& values) {
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->byte_size(), values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(t->raw_data(), values.data(), t->byte_size());
  return *t;
}

Tensor Strings(Shape shape, const std::vector<std::string>& values) {
  absl::StatusOr<Tensor> t =
      Tensor::Create(DataType::kString, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->num_elements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    t->data<std::string>()[i] = values[i];
  return *t;
}

::testing::AssertionResult SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return ::testing::AssertionFailure()
           << a.DebugString() << " vs " << b.DebugString();
  }
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) {
        return ::testing::AssertionFailure() << "string " << i << " differs";
      }
    }
  } else if (a.byte_size() != b.byte_size() ||
             (a.byte_size() > 0 &&
              std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) != 0)) {
    return ::testing::AssertionFailure() << a.DebugString() << " bytes differ";
  }
  return ::testing::AssertionSuccess();
}

std::unique_ptr<TensorBundleReader> OpenOrDie(const std::string& prefix) {
  absl::StatusOr<std::unique_ptr<TensorBundleReader>> r =
      TensorBundleReader::Open(prefix);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : nullptr;
}

float ReadFloatScalar(const TensorBundleReader& reader,
                      const std::string& key) {
  absl::StatusOr<Tensor> t = reader.Read(key);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return -1;
  EXPECT_EQ(t->dtype(), DataType::kFloat) << key;
  EXPECT_EQ(t->rank(), 0) << key;
  return *t->data<float>();
}

// Rewrites PREFIX.index after `edit` changes its (key, value) entries.
void RewriteIndex(const std::string& prefix,
                  const std::function<void(SstableEntries*)>& edit) {
  absl::StatusOr<SstableEntries> entries = ReadSstable(prefix + ".index");
  ASSERT_TRUE(entries.ok()) << entries.status();
  edit(&*entries);
  absl::StatusOr<std::string> table = testing::BuildSstable(*entries);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_TRUE(file::WriteAll(prefix + ".index", *table).ok());
}

void EditHeader(const std::string& prefix,
                const std::function<void(tfproto::BundleHeaderProto*)>& edit) {
  RewriteIndex(prefix, [&](SstableEntries* entries) {
    ASSERT_EQ((*entries)[0].first, "");
    tfproto::BundleHeaderProto header;
    ASSERT_TRUE(header.ParseFromString((*entries)[0].second));
    edit(&header);
    (*entries)[0].second = header.SerializeAsString();
  });
}

void EditEntry(const std::string& prefix, const std::string& key,
               const std::function<void(tfproto::BundleEntryProto*)>& edit) {
  RewriteIndex(prefix, [&](SstableEntries* entries) {
    for (auto& [k, v] : *entries) {
      if (k != key) continue;
      tfproto::BundleEntryProto entry;
      ASSERT_TRUE(entry.ParseFromString(v));
      edit(&entry);
      v = entry.SerializeAsString();
      return;
    }
    FAIL() << "no key " << key;
  });
}

void FlipByte(const std::string& path, uint64_t offset) {
  absl::StatusOr<std::string> bytes = file::ReadAll(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_LT(offset, bytes->size());
  (*bytes)[offset] ^= 0x01;
  ASSERT_TRUE(file::WriteAll(path, *bytes).ok());
}

// ---------------------------------------------------------------------------
// Real bundles written by TensorFlow.

constexpr char kHalfPlusTwo[] =
    "tf-serving/saved_model_half_plus_two_cpu/00000123/variables/variables";
constexpr char kHalfPlusTwoTf2[] =
    "tf-serving/saved_model_half_plus_two_tf2_cpu/00000123/variables/variables";
constexpr char kOcrCtc[] = "community/ocr_ctc/variables/variables";

TEST(TensorBundleShared, HalfPlusTwoHasItsThreeScalars) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  auto reader = OpenOrDie(testing::SharedModel(kHalfPlusTwo));
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 1);
  EXPECT_EQ(ReadFloatScalar(*reader, "a"), 0.5f);
  EXPECT_EQ(ReadFloatScalar(*reader, "b"), 2.0f);
  EXPECT_EQ(ReadFloatScalar(*reader, "c"), 3.0f);
  const BundleEntry* a = reader->Find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->dtype, DataType::kFloat);
  EXPECT_EQ(a->tf_dtype, 1);
  EXPECT_TRUE(a->shape.empty());
  EXPECT_EQ(a->size, 4);
  EXPECT_FALSE(a->sliced);
  EXPECT_EQ(reader->Find("nope"), nullptr);
}

TEST(TensorBundleShared, HalfPlusTwoTf2HasObjectGraphAndValues) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  auto reader = OpenOrDie(testing::SharedModel(kHalfPlusTwoTf2));
  ASSERT_NE(reader, nullptr);
  std::vector<std::string> keys;
  for (const BundleEntry& e : reader->entries()) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"_CHECKPOINTABLE_OBJECT_GRAPH",
                                            "a/.ATTRIBUTES/VARIABLE_VALUE",
                                            "b/.ATTRIBUTES/VARIABLE_VALUE",
                                            "c/.ATTRIBUTES/VARIABLE_VALUE"}));
  EXPECT_EQ(ReadFloatScalar(*reader, "a/.ATTRIBUTES/VARIABLE_VALUE"), 0.5f);
  EXPECT_EQ(ReadFloatScalar(*reader, "b/.ATTRIBUTES/VARIABLE_VALUE"), 2.0f);
  EXPECT_EQ(ReadFloatScalar(*reader, "c/.ATTRIBUTES/VARIABLE_VALUE"), 3.0f);

  absl::StatusOr<Tensor> graph = reader->Read("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->dtype(), DataType::kString);
  EXPECT_EQ(graph->rank(), 0);
  tfproto::TrackableObjectGraph object_graph;
  ASSERT_TRUE(object_graph.ParseFromString(*graph->data<std::string>()));
  EXPECT_GT(object_graph.nodes_size(), 0);
}

TEST(TensorBundleShared, OcrCtcHasTwoShards) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  auto reader = OpenOrDie(testing::SharedModel(kOcrCtc));
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 2);
  EXPECT_EQ(reader->ShardPath(1),
            testing::SharedModel(kOcrCtc) + ".data-00001-of-00002");
  bool shard[2] = {false, false};
  for (const BundleEntry& e : reader->entries()) {
    ASSERT_TRUE(e.shard_id == 0 || e.shard_id == 1);
    shard[e.shard_id] = true;
    absl::StatusOr<Tensor> t = reader->Read(e.key);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->shape(), e.shape);
  }
  EXPECT_TRUE(shard[0] && shard[1]);
  const BundleEntry* k =
      reader->Find("layer_with_weights-4/kernel/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shape, (Shape{512, 128}));
}

// Every variables/ bundle under shared/models opens, and every tensor reads
// with its crc32c verified.
TEST(TensorBundleShared, ReadsEveryTensorOfEverySharedBundle) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  int bundles = 0, tensors = 0;
  bool saw_ocr = false;
  for (const auto& entry :
       fs::recursive_directory_iterator(testing::SharedModelsDir())) {
    const fs::path& p = entry.path();
    if (p.extension() != ".index" ||
        p.parent_path().filename() != "variables") {
      continue;
    }
    const std::string prefix = (p.parent_path() / p.stem()).string();
    SCOPED_TRACE(prefix);
    auto reader = OpenOrDie(prefix);
    ASSERT_NE(reader, nullptr);
    ++bundles;
    saw_ocr |= prefix.find("ocr_ctc") != std::string::npos;
    for (const BundleEntry& e : reader->entries()) {
      absl::StatusOr<Tensor> t = reader->Read(e.key);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_EQ(t->shape(), e.shape) << e.key;
      EXPECT_EQ(t->dtype(), e.dtype) << e.key;
      ++tensors;
    }
  }
  EXPECT_GE(bundles, 3);
  EXPECT_TRUE(saw_ocr);
  EXPECT_GT(tensors, bundles);
}

// Corruption of real bundles, on copies in a temp dir (shared/ is read-only).
class TensorBundleSharedCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    const std::string src = testing::SharedModel(kHalfPlusTwoTf2);
    dir_ = testing::MakeTempDir();
    testing::CopyTree(fs::path(src).parent_path().string(), dir_);
    prefix_ = dir_ + "/variables";
    index_ = prefix_ + ".index";
    shard_ = prefix_ + ".data-00000-of-00001";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  absl::Status OpenStatus() {
    return TensorBundleReader::Open(prefix_).status();
  }

  std::string dir_, prefix_, index_, shard_;
};

TEST_F(TensorBundleSharedCorruption, FlippedDataByteNamesTheTensor) {
  const std::string key = "b/.ATTRIBUTES/VARIABLE_VALUE";
  uint64_t offset = 0;
  {
    auto reader = OpenOrDie(prefix_);
    ASSERT_NE(reader, nullptr);
    offset = reader->Find(key)->offset;
  }
  FlipByte(shard_, offset + 2);
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  absl::StatusOr<Tensor> t = reader->Read(key);
  EXPECT_TRUE(absl::IsDataLoss(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(
      t.status(), "checksum mismatch for tensor '" + key + "' in " + shard_));
  // The others still read.
  EXPECT_EQ(ReadFloatScalar(*reader, "a/.ATTRIBUTES/VARIABLE_VALUE"), 0.5f);
  EXPECT_TRUE(reader->Read("_CHECKPOINTABLE_OBJECT_GRAPH").ok());
}

TEST_F(TensorBundleSharedCorruption, FlippedStringByteNamesTheTensor) {
  const std::string key = "_CHECKPOINTABLE_OBJECT_GRAPH";
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  const BundleEntry e = *reader->Find(key);
  FlipByte(shard_, e.offset + e.size - 1);  // in the string bytes
  absl::StatusOr<Tensor> t = reader->Read(key);
  EXPECT_TRUE(absl::IsDataLoss(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(t.status(), "checksum mismatch for tensor '" + key));
  EXPECT_TRUE(MessageHas(t.status(), shard_));
}

TEST_F(TensorBundleSharedCorruption, TruncatedIndex) {
  absl::StatusOr<std::string> bytes = file::ReadAll(index_);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(file::WriteAll(index_, bytes->substr(0, 30)).ok());
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, index_ + ": file is 30 bytes"));
  EXPECT_TRUE(MessageHas(s, "truncated"));

  ASSERT_TRUE(file::WriteAll(index_, bytes->substr(0, bytes->size() - 1)).ok());
  s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "bad magic number"));
}

TEST_F(TensorBundleSharedCorruption, GarbageIndex) {
  ASSERT_TRUE(file::WriteAll(index_, std::string(500, 'Z')).ok());
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, index_));
  EXPECT_TRUE(MessageHas(s, "not an SSTable"));
}

TEST_F(TensorBundleSharedCorruption, WrongMagicNumber) {
  absl::StatusOr<uint64_t> size = file::Size(index_);
  ASSERT_TRUE(size.ok());
  FlipByte(index_, *size - 8);
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "bad magic number 0xdb4775248b80fb56"));
}

TEST_F(TensorBundleSharedCorruption, IndexBlockCrc) {
  FlipByte(index_, 10);
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "crc32c mismatch"));
}

TEST_F(TensorBundleSharedCorruption, MissingShard) {
  fs::remove(shard_);
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(MessageHas(s, "data shard " + shard_ + " is missing"));
}

TEST_F(TensorBundleSharedCorruption, MissingIndex) {
  fs::remove(index_);
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(MessageHas(s, index_));
}

TEST_F(TensorBundleSharedCorruption, TruncatedShard) {
  fs::resize_file(shard_, 3);
  absl::Status s = OpenStatus();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "which has 3 bytes"));
}

// ---------------------------------------------------------------------------
// Bundles from the test writer.

class TensorBundleWritten : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    prefix_ = dir_ + "/ckpt";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, prefix_;
};

std::vector<BundleTensor> EveryDtype() {
  return {
      {"bf16", Make<uint16_t>(DataType::kBFloat16, {2}, {0x3f80, 0xc040})},
      {"bool", Make<uint8_t>(DataType::kBool, {3}, {1, 0, 1})},
      {"c64", Make<float>(DataType::kComplex64, {1}, {1.f, -1.f})},
      {"f16", Make<uint16_t>(DataType::kHalf, {2, 1}, {0x3c00, 0x4100})},
      {"f32", Make<float>(DataType::kFloat, {2, 3}, {1, 2, 3, 4, 5, -6.5f})},
      {"f64", Make<double>(DataType::kDouble, {}, {3.141592653589793})},
      {"i16", Make<int16_t>(DataType::kInt16, {2}, {-300, 7})},
      {"i32", Make<int32_t>(DataType::kInt32, {2}, {-70000, 9})},
      {"i64", Make<int64_t>(DataType::kInt64, {1}, {-5000000000LL})},
      {"i8", Make<int8_t>(DataType::kInt8, {2}, {-1, 5})},
      {"u16", Make<uint16_t>(DataType::kUInt16, {2}, {65535, 2})},
      {"u32", Make<uint32_t>(DataType::kUInt32, {2}, {4000000000u, 3})},
      {"u64",
       Make<uint64_t>(DataType::kUInt64, {1}, {18000000000000000000ull})},
      {"u8", Make<uint8_t>(DataType::kUInt8, {4}, {0, 1, 128, 255})},
      {"str", Strings({2, 2}, {"", "hello", std::string(300, 'x'),
                               std::string("\0\xff", 2)})},
      {"str_long", Strings({1}, {std::string(200000, 'q')})},
      {"str_scalar", Strings({}, {"abc"})},
      {"str_empty_scalar", Strings({}, {""})},
      {"str_zero", Strings({0, 5}, {})},
      {"f32_zero", Make<float>(DataType::kFloat, {3, 0}, {})},
      {"f32_scalar", Make<float>(DataType::kFloat, {}, {42.f})},
  };
}

TEST_F(TensorBundleWritten, EveryDtypeRoundTrips) {
  const std::vector<BundleTensor> tensors = EveryDtype();
  for (bool snappy : {false, true}) {
    testing::SstableOptions options;
    options.snappy = snappy;
    ASSERT_TRUE(WriteBundle(prefix_, tensors, 1, options).ok());
    auto reader = OpenOrDie(prefix_);
    ASSERT_NE(reader, nullptr);
    ASSERT_EQ(reader->entries().size(), tensors.size());
    for (const BundleTensor& bt : tensors) {
      SCOPED_TRACE(bt.key);
      const BundleEntry* e = reader->Find(bt.key);
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->dtype, bt.value.dtype());
      EXPECT_EQ(e->shape, bt.value.shape());
      absl::StatusOr<Tensor> t = reader->Read(bt.key);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_TRUE(SameTensor(*t, bt.value));
    }
    // entries() is sorted by key.
    for (size_t i = 1; i < reader->entries().size(); ++i) {
      EXPECT_LT(reader->entries()[i - 1].key, reader->entries()[i].key);
    }
  }
}

TEST_F(TensorBundleWritten, ThreeShardsRoundTrip) {
  std::vector<BundleTensor> tensors = EveryDtype();
  for (size_t i = 0; i < tensors.size(); ++i) tensors[i].shard = i % 3;
  for (int i = 0; i < 40; ++i) {  // enough keys for several restart points
    tensors.push_back({"layer_" + std::to_string(i) + "/kernel",
                       Make<int32_t>(DataType::kInt32, {1}, {i}), i % 3});
  }
  ASSERT_TRUE(WriteBundle(prefix_, tensors, 3).ok());
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 3);
  EXPECT_EQ(reader->ShardPath(2), prefix_ + ".data-00002-of-00003");
  EXPECT_TRUE(file::Exists(prefix_ + ".data-00000-of-00003"));
  for (const BundleTensor& bt : tensors) {
    SCOPED_TRACE(bt.key);
    const BundleEntry* e = reader->Find(bt.key);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->shard_id, bt.shard);
    absl::StatusOr<Tensor> t = reader->Read(bt.key);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_TRUE(SameTensor(*t, bt.value));
  }
}

// smrt check opens a bundle whose data is missing without require_data:
// the index is listed, the missing shard named, its entries unreadable, the
// others read. With require_data (Model::Load) it is refused as before.
TEST_F(TensorBundleWritten, MissingShardWithoutRequireData) {
  ASSERT_TRUE(WriteBundle(prefix_,
                          {{"a", Make<float>(DataType::kFloat, {2}, {1.f, 2.f}), 0},
                           {"b", Make<int32_t>(DataType::kInt32, {1}, {7}), 1}},
                          2)
                  .ok());
  const std::string gone = prefix_ + ".data-00000-of-00002";
  ASSERT_TRUE(fs::remove(gone));
  EXPECT_EQ(TensorBundleReader::Open(prefix_).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::unique_ptr<TensorBundleReader>> reader =
      TensorBundleReader::Open(prefix_, nullptr, /*require_data=*/false);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->missing_shards(), std::vector<std::string>{gone});
  ASSERT_EQ((*reader)->entries().size(), 2u);
  absl::StatusOr<Tensor> a = (*reader)->Read("a");
  ASSERT_EQ(a.status().code(), absl::StatusCode::kNotFound) << a.status();
  EXPECT_NE(a.status().message().find(gone), std::string::npos) << a.status();
  absl::StatusOr<Tensor> b = (*reader)->Read("b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->data<int32_t>()[0], 7);
}

TEST_F(TensorBundleWritten, EmptyShardIsFine) {
  ASSERT_TRUE(WriteBundle(prefix_,
                          {{"x", Make<float>(DataType::kFloat, {}, {1.f}), 1}},
                          2)
                  .ok());
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->Read("x").ok());
}

TEST_F(TensorBundleWritten, UnknownKeyListsSomeKeys) {
  ASSERT_TRUE(WriteBundle(prefix_, EveryDtype()).ok());
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  absl::StatusOr<Tensor> t = reader->Read("missing/kernel");
  EXPECT_TRUE(absl::IsNotFound(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(t.status(),
                         "no tensor 'missing/kernel' in bundle " + prefix_));
  EXPECT_TRUE(
      MessageHas(t.status(), "'bf16', 'bool', 'c64', 'f16', 'f32', ...)"));
}

TEST_F(TensorBundleWritten, StringCorruption) {
  ASSERT_TRUE(WriteBundle(prefix_, {{"s", Strings({2}, {"ab", "cde"})}}).ok());
  const std::string shard = prefix_ + ".data-00000-of-00001";
  // Layout: varint 2, varint 3, 4-byte length crc, "abcde".
  for (uint64_t offset : {uint64_t{0}, uint64_t{3}, uint64_t{8}}) {
    ASSERT_TRUE(
        WriteBundle(prefix_, {{"s", Strings({2}, {"ab", "cde"})}}).ok());
    FlipByte(shard, offset);
    auto reader = OpenOrDie(prefix_);
    ASSERT_NE(reader, nullptr);
    absl::StatusOr<Tensor> t = reader->Read("s");
    EXPECT_TRUE(absl::IsDataLoss(t.status())) << offset << ": " << t.status();
    EXPECT_TRUE(MessageHas(t.status(), "for tensor 's' in " + shard));
  }
}

TEST_F(TensorBundleWritten, EveryFlippedDataByteIsCaught) {
  std::vector<BundleTensor> tensors;
  for (BundleTensor& t : EveryDtype()) {
    if (t.key != "str_long") tensors.push_back(std::move(t));
  }
  ASSERT_TRUE(WriteBundle(prefix_, tensors).ok());
  const std::string shard = prefix_ + ".data-00000-of-00001";
  absl::StatusOr<std::string> good = file::ReadAll(shard);
  ASSERT_TRUE(good.ok());
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  for (size_t i = 0; i < good->size(); ++i) {
    std::string bad = *good;
    bad[i] ^= 0x10;
    ASSERT_TRUE(file::WriteAll(shard, bad).ok());
    int failures = 0;
    for (const BundleEntry& e : reader->entries()) {
      absl::StatusOr<Tensor> t = reader->Read(e.key);
      const bool hit = static_cast<int64_t>(i) >= e.offset &&
                       static_cast<int64_t>(i) < e.offset + e.size;
      if (hit) {
        EXPECT_TRUE(absl::IsDataLoss(t.status())) << i << " " << t.status();
        EXPECT_TRUE(MessageHas(t.status(), "for tensor '" + e.key + "'"));
        ++failures;
      } else {
        EXPECT_TRUE(t.ok()) << i << " " << t.status();
      }
    }
    EXPECT_EQ(failures, 1) << "byte " << i;
  }
}

TEST_F(TensorBundleWritten, ZeroElementStringsWithNoBytes) {
  // TensorFlow writes 4 bytes (the length crc) but also reads size 0.
  ASSERT_TRUE(WriteBundle(prefix_, {{"s", Strings({0, 2}, {})}}).ok());
  EditEntry(prefix_, "s", [](tfproto::BundleEntryProto* e) {
    EXPECT_EQ(e->size(), 4);
    e->set_size(0);
    e->set_crc32c(crc32c::Mask(0));
  });
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  absl::StatusOr<Tensor> t = reader->Read("s");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (Shape{0, 2}));
}

TEST_F(TensorBundleWritten, SlicedEntryIsListedButNotRead) {
  ASSERT_TRUE(WriteBundle(prefix_, {{"part", Make<float>(DataType::kFloat, {2},
                                                         {1, 2})}})
                  .ok());
  EditEntry(prefix_, "part",
            [](tfproto::BundleEntryProto* e) { e->add_slices()->add_extent()->set_start(0); });
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  ASSERT_NE(reader->Find("part"), nullptr);
  EXPECT_TRUE(reader->Find("part")->sliced);
  absl::StatusOr<Tensor> t = reader->Read("part");
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(t.status(), "partitioned variable"));
}

TEST_F(TensorBundleWritten, ResourceAndVariantAreListedButNotRead) {
  ASSERT_TRUE(WriteBundle(prefix_, {{"r", Strings({}, {"x"})},
                                    {"v", Strings({}, {"y"})}})
                  .ok());
  EditEntry(prefix_, "r", [](tfproto::BundleEntryProto* e) { e->set_dtype(tfproto::DT_RESOURCE); });
  EditEntry(prefix_, "v", [](tfproto::BundleEntryProto* e) { e->set_dtype(tfproto::DT_VARIANT); });
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Find("r")->dtype, DataType::kResource);
  EXPECT_EQ(reader->Find("v")->dtype, DataType::kVariant);
  absl::StatusOr<Tensor> t = reader->Read("v");
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(
      t.status(), "tensor 'v' in bundle " + prefix_ + " has dtype DT_VARIANT"));
  EXPECT_TRUE(absl::IsUnimplemented(reader->Read("r").status()));
}

TEST_F(TensorBundleWritten, HeaderChecks) {
  const std::vector<BundleTensor> one = {
      {"x", Make<float>(DataType::kFloat, {}, {1.f})}};
  struct Case {
    std::function<void(tfproto::BundleHeaderProto*)> edit;
    absl::StatusCode code;
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](auto* h) { h->set_endianness(tfproto::BundleHeaderProto::BIG); },
       absl::StatusCode::kUnimplemented, "big-endian"},
      {[](auto* h) { h->mutable_version()->set_min_consumer(2); }, absl::StatusCode::kUnimplemented,
       "needs a reader of version 2"},
      {[](auto* h) { h->mutable_version()->add_bad_consumers(1); },
       absl::StatusCode::kUnimplemented, "disallows reader version 1"},
      {[](auto* h) { h->mutable_version()->set_producer(-1); }, absl::StatusCode::kInvalidArgument,
       "producer version -1"},
      {[](auto* h) { h->set_num_shards(-2); }, absl::StatusCode::kDataLoss, "names -2 shards"},
      {[](auto* h) { h->set_num_shards(2); }, absl::StatusCode::kNotFound,
       ".data-00000-of-00002 is missing"},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(WriteBundle(prefix_, one).ok());
    EditHeader(prefix_, c.edit);
    absl::Status s = TensorBundleReader::Open(prefix_).status();
    EXPECT_EQ(s.code(), c.code) << s;
    EXPECT_TRUE(MessageHas(s, c.message));
  }
  // Harmless version fields are accepted.
  ASSERT_TRUE(WriteBundle(prefix_, one).ok());
  EditHeader(prefix_, [](auto* h) {
    h->mutable_version()->set_producer(7);
    h->mutable_version()->add_bad_consumers(0);
  });
  EXPECT_TRUE(TensorBundleReader::Open(prefix_).ok());
}

TEST_F(TensorBundleWritten, MissingOrGarbledHeader) {
  ASSERT_TRUE(
      WriteBundle(prefix_, {{"x", Make<float>(DataType::kFloat, {}, {1.f})}})
          .ok());
  RewriteIndex(prefix_, [](SstableEntries* e) { e->erase(e->begin()); });
  absl::Status s = TensorBundleReader::Open(prefix_).status();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "no header entry"));

  ASSERT_TRUE(
      WriteBundle(prefix_, {{"x", Make<float>(DataType::kFloat, {}, {1.f})}})
          .ok());
  RewriteIndex(prefix_,
               [](SstableEntries* e) { (*e)[0].second = "\xff\xff\xff"; });
  s = TensorBundleReader::Open(prefix_).status();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "not a valid BundleHeaderProto"));
}

TEST_F(TensorBundleWritten, EntryChecks) {
  const std::vector<BundleTensor> tensors = {
      {"f", Make<float>(DataType::kFloat, {2}, {1.f, 2.f})},
      {"s", Strings({2}, {"ab", "c"})}};
  struct Case {
    const char* key;
    std::function<void(tfproto::BundleEntryProto*)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"f", [](auto* e) { e->set_size(12); },
       "is float32 (2) but the index says 12 bytes"},
      {"f", [](auto* e) { e->mutable_shape()->add_dim()->set_size(-1); },
       "invalid shape"},
      {"f", [](auto* e) { e->mutable_shape()->set_unknown_rank(true); },
       "unknown rank"},
      {"f", [](auto* e) { e->set_shard_id(1); },
       "is in shard 1 but the bundle has 1 shards"},
      {"f", [](auto* e) { e->set_offset(1000); }, "claims bytes [1000, +8)"},
      {"f", [](auto* e) { e->set_offset(-4); }, "claims bytes [-4, +8)"},
      {"f",
       [](auto* e) {
         e->set_size(int64_t{1} << 62);
         e->mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 60);
       },
       "claims bytes"},
      {"s", [](auto* e) { e->mutable_shape()->mutable_dim(0)->set_size(100); },
       "holds 100 strings"},
      {"f",
       [](auto* e) {
         e->mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
         e->mutable_shape()->add_dim()->set_size(int64_t{1} << 40);
       },
       "invalid shape"},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(WriteBundle(prefix_, tensors).ok());
    EditEntry(prefix_, c.key, c.edit);
    absl::Status s = TensorBundleReader::Open(prefix_).status();
    EXPECT_TRUE(absl::IsDataLoss(s)) << s;
    EXPECT_TRUE(MessageHas(s, std::string("tensor '") + c.key + "'"));
    EXPECT_TRUE(MessageHas(s, c.message));
  }
  ASSERT_TRUE(WriteBundle(prefix_, tensors).ok());
  RewriteIndex(prefix_, [](SstableEntries* e) { (*e)[1].second = "\x0a\xff"; });
  absl::Status s = TensorBundleReader::Open(prefix_).status();
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "not a valid BundleEntryProto"));
}

TEST_F(TensorBundleWritten, UnsupportedDtypeIsListedButNotRead) {
  ASSERT_TRUE(
      WriteBundle(prefix_, {{"q", Make<int8_t>(DataType::kInt8, {1}, {1})}})
          .ok());
  EditEntry(prefix_, "q", [](tfproto::BundleEntryProto* e) {
    e->set_dtype(static_cast<tfproto::DataType>(11));  // DT_QINT8
  });
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Find("q")->dtype, DataType::kInvalid);
  EXPECT_EQ(reader->Find("q")->tf_dtype, 11);
  absl::StatusOr<Tensor> t = reader->Read("q");
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(t.status(), "has dtype 11"));
}

TEST_F(TensorBundleWritten, ShardShrunkAfterOpen) {
  ASSERT_TRUE(WriteBundle(prefix_, {{"f", Make<float>(DataType::kFloat, {4},
                                                      {1, 2, 3, 4})}})
                  .ok());
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  fs::resize_file(prefix_ + ".data-00000-of-00001", 8);
  absl::StatusOr<Tensor> t = reader->Read("f");
  EXPECT_FALSE(t.ok());
  EXPECT_TRUE(MessageHas(t.status(), prefix_ + ".data-00000-of-00001"));
}

}  // namespace
}  // namespace smrt::loader

namespace smrt::loader {
namespace {

// Entries at 64-byte offsets with 64-byte multiple sizes are mapped from the
// shard (file::MappedTensor), the others read; both give the bundle's values,
// a checksum is still checked on a mapped one, and set_map_data(false)
// reads every entry.
TEST_F(TensorBundleWritten, AlignedEntriesAreMappedAndTheRestRead) {
  std::vector<float> a(16), b(32), c(3), d(16);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.5f * static_cast<float>(i);
  for (size_t i = 0; i < a.size(); ++i) a[i] = d[i] = -static_cast<float>(i);
  c = {1, 2, 3};
  // Written in key order: a at 0, b at 64, c at 192 (12 bytes), d at 204.
  const std::vector<BundleTensor> tensors = {
      {"a", Make<float>(DataType::kFloat, {4, 4}, a)},
      {"b", Make<float>(DataType::kFloat, {32}, b)},
      {"c", Make<float>(DataType::kFloat, {3}, c)},
      {"d", Make<float>(DataType::kFloat, {16}, d)},
  };
  ASSERT_TRUE(WriteBundle(prefix_, tensors).ok());
  for (bool map : {true, false}) {
    SCOPED_TRACE(map);
    auto reader = OpenOrDie(prefix_);
    ASSERT_NE(reader, nullptr);
    reader->set_map_data(map);
    ASSERT_EQ(reader->Find("b")->offset, 64);
    ASSERT_EQ(reader->Find("d")->offset, 204);
    for (const BundleTensor& bt : tensors) {
      SCOPED_TRACE(bt.key);
      absl::StatusOr<Tensor> t = reader->Read(bt.key);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_TRUE(SameTensor(*t, bt.value));
      EXPECT_EQ(t->mapped(), map && (bt.key == "a" || bt.key == "b"));
    }
  }
  FlipByte(prefix_ + ".data-00000-of-00001", 64 + 5);
  auto reader = OpenOrDie(prefix_);
  ASSERT_NE(reader, nullptr);
  absl::StatusOr<Tensor> t = reader->Read("b");
  EXPECT_TRUE(absl::IsDataLoss(t.status())) << t.status();
  EXPECT_TRUE(MessageHas(t.status(), "'b'")) << t.status();
}

}  // namespace
}  // namespace smrt::loader
