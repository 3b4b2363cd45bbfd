#include <catch2/catch.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;

TEST_CASE("json input: errors name the file and the entry, numbers out of range included", "[support][errors]") {
  CHECK_THROWS_AS(parseJsonText(R"({"config": {"learning_rate": 1e400}})", "run.json"), InputError);
  CHECK_THROWS_WITH(parseJsonText(R"({"config": {"learning_rate": 1e400}})", "run.json"),
                    Contains("run.json: config.learning_rate:") && Contains("1e400"));
  CHECK_THROWS_WITH(parseJsonText(R"({"modules": ["a.o", "b.o", 1e999]})", "corpus_description.json"),
                    Contains("modules[2]"));
  CHECK_THROWS_WITH(parseJsonText(R"({"layers": [{"weights": [1, 2,]}]})", "weights.json"),
                    Contains("layers[0].weights"));
  CHECK(parseJsonText(R"({"a": [1, {"b": 2}]})", "x")["a"][1]["b"] == 2);
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "big.json", "[1e400]");
  CHECK_THROWS_WITH(readJsonFile(dir / "big.json"), Contains("big.json") && Contains("[0]"));
  CHECK_THROWS_WITH(readJsonFile(dir / "absent.json"), Contains("absent.json"));
}

TEST_CASE("json input: a syntax error reads as text for a person, without the library's tag or an echo of the input",
          "[support][errors]") {
  const std::string message =
      test::messageOf<InputError>([] { parseJsonText("{\"key\": \"value, \"secret\": 1}", "config.json"); });
  CHECK_THAT(message, Contains("config.json") && Contains("not valid JSON: syntax error at line 1, column "));
  CHECK(message.find("[json.exception") == std::string::npos);
  CHECK(message.find("last read") == std::string::npos);
  CHECK(message.find("parse error") == std::string::npos);
  CHECK(message.find("secret") == std::string::npos);
}

TEST_CASE("json input: a line of a JSON Lines file is named by its number, the column by where it broke",
          "[support][errors]") {
  const std::string message = test::messageOf<InputError>([] { parseJsonLine("{\"a\": [1, tru]}", "p.jsonl", 7); });
  CHECK(message == "p.jsonl: line 7: a[1]: not valid JSON: syntax error at column 14: invalid literal");
  CHECK(parseJsonLine("{\"a\": 1}", "p.jsonl", 1)["a"] == 1);
}

TEST_CASE("json input: entries missing or of the wrong type read in mlgo's words", "[support][errors]") {
  const nlohmann::json document = nlohmann::json::parse(R"({"metric": 3, "modules": []})");
  auto failure = [&](auto access) {
    try {
      access();
    } catch (const nlohmann::json::exception &e) {
      return jsonErrorText(e);
    }
    return std::string();
  };
  CHECK(failure([&] { return document.at("metric").get<std::string>(); }) == "must be a string, not a number");
  CHECK(failure([&] { return document.at("lists"); }) == "the entry \"lists\" is missing");
  CHECK(failure([&] { return document.at("modules").get<bool>(); }) == "must be a boolean, not an array");
  // Other exceptions keep their message.
  CHECK(jsonErrorText(std::runtime_error("checksum differs")) == "checksum differs");
}

TEST_CASE("json input: values nested deeper than mlgo reads are refused at the parse, naming the file and a short path",
          "[support][errors][security]") {
  const std::string deep = std::string(200000, '[') + "1" + std::string(200000, ']');
  const std::string message =
      test::messageOf<InputError>([&] { parseJsonText("{\"unknown\": " + deep + "}", "policy.json"); });
  CHECK_THAT(message, Contains("policy.json: unknown[0][0]") && Contains("levels ...]") &&
                          Contains("nested deeper than the 256 levels mlgo reads"));
  CHECK(message.size() < 300);
  // The limit itself is readable: 256 levels, not 257.
  const std::string limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parseJsonText(limit, "x").is_array());
  CHECK_THROWS_AS(parseJsonText("[" + limit + "]", "x"), InputError);
  CHECK_THAT(test::messageOf<InputError>([&] { parseJsonLine(deep, "log.jsonl", 3); }),
             Contains("log.jsonl: line 3: "));
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "deep.json", deep);
  CHECK_THAT(test::messageOf<InputError>([&] { readJsonFile(dir / "deep.json"); }), Contains("deep.json"));
  // Text whose problems the caller handles: discarded, never thrown.
  CHECK(parseJsonOrDiscarded(deep).is_discarded());
  CHECK(parseJsonOrDiscarded("{\"a\": tru}").is_discarded());
  CHECK(parseJsonOrDiscarded(limit).is_array());
  CHECK(parseJsonOrDiscarded("{\"a\": [1, 2]}")["a"][1] == 2);
}

TEST_CASE("json input: every JSON text in the library is parsed by the bounded parsers", "[support][security]") {
  // run_comparison.cpp compares run outputs of any depth, without recursing:
  // it is the one reader that takes them whole.
  const std::filesystem::path sources = std::filesystem::path(MLGO_TEST_SOURCES).parent_path() / "src";
  std::vector<std::string> unbounded;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(sources)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == "text_input.cpp" || name == "run_comparison.cpp") continue;
    if (readFile(entry.path()).find("json::parse(") != std::string::npos) unbounded.push_back(name);
  }
  std::string named;
  for (const std::string &name : unbounded) named += " " + name;
  INFO("parse JSON themselves:" + named);
  CHECK(unbounded.empty());
}
