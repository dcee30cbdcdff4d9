// The strict JSON reader (the quantization file): what it accepts, and that
// anything else is InvalidArgument saying where, never a crash.
#include "core/json_reader.h"

#include <string>

#include "core/json_writer.h"
#include "gtest/gtest.h"

namespace smrt {
namespace {

TEST(JsonReaderTest, ReadsWhatTheWriterWrites) {
  JsonWriter w;
  w.BeginObject().Key("name").String("a \"quoted\" caf\xc3\xa9\n").Key("n").Int(-42);
  w.Key("x").Number(0.125, 3).Key("ok").Bool(true).Key("none").Null();
  w.Key("list").BeginArray().Int(1).BeginObject().EndObject().BeginArray().EndArray().EndArray();
  w.EndObject();
  absl::StatusOr<JsonValue> v = ParseJson(w.text());
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->kind, JsonValue::Kind::kObject);
  EXPECT_EQ(v->Find("name")->string, "a \"quoted\" caf\xc3\xa9\n");
  EXPECT_EQ(v->Find("n")->number, -42);
  EXPECT_EQ(v->Find("x")->number, 0.125);
  EXPECT_TRUE(v->Find("ok")->boolean);
  EXPECT_EQ(v->Find("none")->kind, JsonValue::Kind::kNull);
  ASSERT_EQ(v->Find("list")->array.size(), 3u);
  EXPECT_EQ(v->Find("list")->array[1].kind, JsonValue::Kind::kObject);
  EXPECT_EQ(v->Find("missing"), nullptr);
  EXPECT_EQ(v->object[0].first, "name");  // keys in the order written
}

TEST(JsonReaderTest, DecodesEscapesAndSurrogatePairs) {
  absl::StatusOr<JsonValue> v = ParseJson(R"(["\u00e9\/\t", "\ud83d\ude42", 1e3, -0.5E-1])");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->array[0].string, "\xc3\xa9/\t");
  EXPECT_EQ(v->array[1].string, "\xf0\x9f\x99\x82");
  EXPECT_EQ(v->array[2].number, 1000);
  EXPECT_EQ(v->array[3].number, -0.05);
}

TEST(JsonReaderTest, RefusesWhatIsNotStrictJsonSayingWhere) {
  for (const char* bad : {"", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "'x'", "01", "1.",
                          "-", "1e", "NaN", "[1] 2", "\"tab\there\"", "\"\\x\"",
                          "{\"a\":1,\"a\":2}", "tru", "[\"\\u12\"]", "// c\n1"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<JsonValue> v = ParseJson(bad);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(v.status().message().find("byte"), std::string::npos) << v.status();
  }
  absl::StatusOr<JsonValue> dup = ParseJson("{\"a\":1,\"a\":2}");
  EXPECT_NE(dup.status().message().find("\"a\" appears twice"), std::string::npos);
}

TEST(JsonReaderTest, BoundsNesting) {
  EXPECT_TRUE(ParseJson(std::string(64, '[') + std::string(64, ']')).ok());
  absl::StatusOr<JsonValue> deep = ParseJson(std::string(100000, '['));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested"), std::string::npos) << deep.status();
}

}  // namespace
}  // namespace smrt
