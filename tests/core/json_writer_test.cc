// The JSON writer (bench --json, the profiler's trace): commas, nesting, numbers, and strings that stay
// valid JSON (and UTF-8) whatever bytes they hold.
#include "core/json_writer.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "testing/mini_json.h"
#include "testing/paths.h"

namespace smrt {
namespace {

TEST(JsonWriterTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
  EXPECT_EQ(JsonQuote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\x7f\"");
  EXPECT_EQ(JsonQuote(std::string("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(JsonWriterTest, PassesUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(JsonQuote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\"");
  EXPECT_EQ(JsonQuote("\xff"), "\"\\ufffd\"");
  EXPECT_EQ(JsonQuote("a\xc3"), "\"a\\ufffd\"");               // truncated
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");       // overlong '/'
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  EXPECT_EQ(JsonQuote("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
}

TEST(JsonWriterTest, PlacesCommasAndNests) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(1).Key("b").BeginArray().Int(2).String("x").BeginObject().EndObject().EndArray();
  w.Key("c").BeginObject().Key("d").Null().Key("e").Bool(true).EndObject();
  w.Key("f").BeginArray().EndArray().Key("g").Number(1.23456).Key("h").Number(2.5, 1);
  w.EndObject();
  EXPECT_EQ(w.text(),
            "{\"a\": 1, \"b\": [2, \"x\", {}], \"c\": {\"d\": null, \"e\": true}, \"f\": [], "
            "\"g\": 1.2346, \"h\": 2.5}");
}

TEST(JsonWriterTest, NonFiniteNumbersAreNull) {
  JsonWriter w;
  w.BeginArray()
      .Number(std::numeric_limits<double>::quiet_NaN())
      .Number(std::numeric_limits<double>::infinity())
      .Number(-1e300, 0)
      .EndArray();
  absl::StatusOr<testing::Json> json = testing::ParseJson(w.text());
  ASSERT_TRUE(json.ok()) << json.status() << w.text();
  EXPECT_EQ(json->array[0].kind, testing::Json::Kind::kNull);
  EXPECT_EQ(json->array[1].kind, testing::Json::Kind::kNull);
  EXPECT_EQ(json->array[2].number, -1e300);
}

// Every byte value in a key and a value: python3's strict UTF-8 JSON reader
// takes it, and the test's parser gives the valid parts back.
TEST(JsonWriterTest, EveryByteGivesValidJson) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  JsonWriter w;
  w.BeginObject().Key(all).String(all).Key("ok").String("x\"y").EndObject();
  absl::StatusOr<testing::Json> json = testing::ParseJson(w.text());
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->Find("ok")->string, "x\"y");
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string file = testing::MakeTempDir() + "/all.json";
  std::ofstream(file, std::ios::binary) << w.text();
  const std::string check =
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
      "assert d[\"ok\"] == \"x\\\"y\" and len(d) == 2' " + file;
  EXPECT_EQ(std::system(check.c_str()), 0) << w.text();
}

}  // namespace
}  // namespace smrt
