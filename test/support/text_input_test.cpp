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
  CHECK_THAT(message, Contains("config.json") && Contains("malformed JSON: parse error at line 1"));
  CHECK(message.find("[json.exception") == std::string::npos);
  CHECK(message.find("last read") == std::string::npos);
}
