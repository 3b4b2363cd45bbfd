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
