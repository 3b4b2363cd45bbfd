#include <catch2/catch.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/es/es_trainer.h"
#include "mlgo/training/ppo/ppo_trainer.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;

TEST_CASE("config: defaults are ml-compiler-opt's BC settings and match configs/", "[training]") {
  const nlohmann::json defaults = behavioralCloningSchema().defaults();
  CHECK(defaults["hidden_layers"] == nlohmann::json({40, 40, 20}));
  CHECK(defaults["dropout"] == 0.2);
  CHECK(defaults["learning_rate"] == 1e-3);
  CHECK(defaults["adam_epsilon"] == 3.125e-4);
  CHECK(defaults["batch_size"] == 64);
  CHECK(defaults["iterations"] == 100000);
  const auto shipped = behavioralCloningSchema().resolve(test::testData() / "../../configs/inlining/bc.json", {});
  CHECK(shipped == defaults);
}

TEST_CASE("config: every shipped PPO config resolves, the priority one is eviction's with the Gaussian's width",
          "[training]") {
  const auto configs = test::testData() / "../../configs";
  const nlohmann::json eviction = ppoSchema().resolve(configs / "regalloc/ppo.json", {});
  const nlohmann::json priority = ppoSchema().resolve(configs / "regalloc/priority-ppo.json", {});
  CHECK(priority["reward_metric"] == "regalloc_score");
  CHECK(priority["reward_scope"] == "function");
  CHECK(priority["value_std"] == 0.1);
  // The priority config is eviction's with the Gaussian's width.
  nlohmann::json withoutWidth = priority;
  withoutWidth["value_std"] = eviction["value_std"];
  CHECK(withoutWidth == eviction);
  for (const char *inlining : {"inlining/ppo.json", "inlining/ppo-demo.json"})
    CHECK_NOTHROW(ppoSchema().resolve(configs / inlining, {}));
}

TEST_CASE("config: --set overrides with typed values", "[training]") {
  const ConfigSchema schema = behavioralCloningSchema();
  const auto config = schema.resolve(std::nullopt, {"iterations=200", "hidden_layers=8,4", "with_sqrt=true",
                                                    "activation=tanh", "learning_rate=0.01",
                                                    "passthrough_features=[\"threshold\"]"});
  CHECK(config["iterations"] == 200);
  CHECK(config["hidden_layers"] == nlohmann::json({8, 4}));
  CHECK(config["with_sqrt"] == true);
  CHECK(config["activation"] == "tanh");
  CHECK(config["learning_rate"] == 0.01);
  CHECK(config["passthrough_features"] == nlohmann::json({"threshold"}));
}

TEST_CASE("config: unknown keys and wrong types name the key", "[training][errors]") {
  const ConfigSchema schema = behavioralCloningSchema();
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "typo.json", R"({"iteratons": 5})");
  CHECK_THROWS_WITH(schema.resolve(dir / "typo.json", {}), Contains("typo.json") && Contains("iteratons") &&
                                                               Contains("unknown config key"));
  writeFileAtomically(dir / "type.json", R"({"batch_size": "big"})");
  CHECK_THROWS_WITH(schema.resolve(dir / "type.json", {}), Contains("batch_size") && Contains("integer"));
  writeFileAtomically(dir / "bad.json", "{");
  CHECK_THROWS_AS(schema.resolve(dir / "bad.json", {}), InputError);
  CHECK_THROWS_WITH(schema.resolve(std::nullopt, {"nope=1"}), Contains("nope") && Contains("unknown"));
  CHECK_THROWS_WITH(schema.resolve(std::nullopt, {"iterations=many"}), Contains("iterations") && Contains("integer"));
  CHECK_THROWS_WITH(schema.resolve(std::nullopt, {"iterations"}), Contains("key=value"));
  CHECK_THROWS_AS(schema.resolve(std::nullopt, {"hidden_layers=8,x"}), UsageError);
}

TEST_CASE("config: a value nested 200,000 levels deep is refused, naming the key, without dumping it",
          "[training][errors]") {
  const ConfigSchema schema = behavioralCloningSchema();
  test::ScratchDirectory dir;
  const std::string deep = std::string(200000, '[') + "1" + std::string(200000, ']');
  writeFileAtomically(dir / "deep.json", "{\"learning_rate\": " + deep + "}");
  CHECK_THROWS_WITH(schema.resolve(dir / "deep.json", {}),
                    Contains("deep.json: learning_rate[0][0]") && Contains("nested deeper than the 256 levels"));
  writeFileAtomically(dir / "deep-list.json", "{\"hidden_layers\": [8, " + deep + "]}");
  CHECK_THROWS_WITH(schema.resolve(dir / "deep-list.json", {}),
                    Contains("deep-list.json: hidden_layers[1][0]") && Contains("nested deeper than the 256 levels"));
  // Given with --set, it is text that is not a number: refused as such, never dumped.
  CHECK_THROWS_WITH(schema.resolve(std::nullopt, {"learning_rate=" + deep}),
                    Contains("learning_rate") && !Contains(deep.substr(0, 1000)));
}

TEST_CASE("config: values out of range are refused before training, naming the key", "[training][errors]") {
  const ConfigSchema schema = behavioralCloningSchema();
  for (const std::string &assignment : {"learning_rate=-1", "learning_rate=0", "learning_rate=1e300",
                                        "adam_epsilon=-1", "batch_size=0", "dropout=1", "hidden_layers=40,0"}) {
    INFO(assignment);
    CHECK_THROWS_AS(schema.resolve(std::nullopt, {assignment}), UsageError);
    CHECK_THROWS_WITH(schema.resolve(std::nullopt, {assignment}),
                      Contains(assignment.substr(0, assignment.find('='))) && Contains("must be in"));
  }
  CHECK_NOTHROW(schema.resolve(std::nullopt, {"learning_rate=0.5", "dropout=0"}));
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "huge.json", R"({"learning_rate": 1e400})");
  CHECK_THROWS_WITH(schema.resolve(dir / "huge.json", {}),
                    Contains("huge.json") && Contains("learning_rate") && Contains("number overflow"));
  writeFileAtomically(dir / "negative.json", R"({"adam_epsilon": -1})");
  CHECK_THROWS_AS(schema.resolve(dir / "negative.json", {}), InputError);
  // Every PPO key with a range accepts its default.
  CHECK_NOTHROW(ppoSchema().resolve(std::nullopt, {}));
}

TEST_CASE("config: shipped config files hold only what differs from the built-in defaults", "[training][config]") {
  const auto configs = test::testData() / "../../configs";
  const std::vector<std::pair<const char *, ConfigSchema>> files{{"inlining/bc.json", behavioralCloningSchema()},
                                                                 {"inlining/imitation.json", behavioralCloningSchema()},
                                                                 {"inlining/es.json", esSchema()},
                                                                 {"inlining/ppo.json", ppoSchema()},
                                                                 {"inlining/ppo-demo.json", ppoSchema()},
                                                                 {"regalloc/ppo.json", ppoSchema()},
                                                                 {"regalloc/priority-ppo.json", ppoSchema()}};
  for (const auto &[file, schema] : files) {
    INFO(file);
    const nlohmann::json defaults = schema.defaults();
    const nlohmann::json held = readJsonFile(configs / file);
    for (const auto &[key, value] : held.items()) {
      INFO(key);
      CHECK(defaults.at(key) != value);
    }
  }
}

TEST_CASE("config: layers apply in order and record where each value came from", "[training][config]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "problem.json", R"({"iterations": 5, "dropout": 0.1})");
  writeFileAtomically(dir / "mine.json", R"({"iterations": 6})");
  const ConfigSchema::Resolved resolved = behavioralCloningSchema().resolveLayers(
      {{dir / "problem.json", "problem file"}, {dir / "mine.json", "--config"}}, {"batch_size=3"});
  CHECK(resolved.values["iterations"] == 6);
  CHECK(resolved.origins.at("iterations") == "--config " + (dir / "mine.json").string());
  CHECK(resolved.values["dropout"] == 0.1);
  CHECK(resolved.origins.at("dropout") == "problem file " + (dir / "problem.json").string());
  CHECK(resolved.values["batch_size"] == 3);
  CHECK(resolved.origins.at("batch_size") == "--set");
  CHECK(resolved.origins.at("learning_rate") == "default");
  writeFileAtomically(dir / "bad.json", R"({"dropout": 2})");
  CHECK_THROWS_WITH(behavioralCloningSchema().resolveLayers({{dir / "bad.json", "problem file"}}, {}),
                    Contains("bad.json") && Contains("dropout") && Contains("must be in [0, 0.99]"));
}

TEST_CASE("config: a resumed run may change only the keys declared resumable", "[training][config][resume]") {
  const ConfigSchema ppo = ppoSchema();
  CHECK(resumableKeys(ppo) == "num_policy_iterations, checkpoint_every, max_failed_share and max_bad_iterations");
  CHECK(resumableKeys(esSchema()) == "iterations");
  const nlohmann::json saved = ppo.resolve(std::nullopt, {});
  CHECK(changedOnResume(ppo, saved, ppo.resolve(std::nullopt, {"num_policy_iterations=9", "checkpoint_every=3"}))
            .empty());
  CHECK(changedOnResume(ppo, saved, ppo.resolve(std::nullopt, {"learning_rate=0.5", "num_modules=3"})) ==
        std::vector<std::string>{"num_modules", "learning_rate"});
  // A key the saved run did not know yet had its default's effect.
  nlohmann::json older = saved;
  older.erase("value_std");
  CHECK(changedOnResume(ppo, older, saved).empty());
  CHECK(changedOnResume(ppo, older, ppo.resolve(std::nullopt, {"value_std=0.3"})) ==
        std::vector<std::string>{"value_std"});
}
