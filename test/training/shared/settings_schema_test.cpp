// The typed declaration of settings: each key fills its member, checked
// against its range or allowed values, and every trainer declares each key once.
#include <catch2/catch.hpp>

#include <set>

#include "mlgo/support/errors.h"
#include "mlgo/training/cloning/bc_settings.h"
#include "mlgo/training/es/es_settings.h"
#include "mlgo/training/predictor/pass_predictor_settings.h"
#include "mlgo/training/ppo/ppo_settings.h"
#include "mlgo/training/shared/settings_schema.h"

using namespace mlgo;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

enum class Colour { Red, Blue };

struct Toy {
  int64_t count = -1;
  double rate = -1;
  bool flag = false;
  std::string mode;
  Colour colour = Colour::Red;
  std::vector<int64_t> sizes;
  std::vector<std::string> names;
};

SettingsSchema<Toy> toySchema() {
  SettingsSchema<Toy> schema;
  schema.field("count", &Toy::count, 3, "a count")
      .within(1, 10)
      .field("rate", &Toy::rate, 0.5, "a rate")
      .withinOpen(0, 1)
      .field("flag", &Toy::flag, true, "a flag")
      .field("mode", &Toy::mode, "fast", "a mode")
      .oneOf({"fast", "slow"})
      .choice("colour", &Toy::colour, Colour::Blue, {{"red", Colour::Red}, {"blue", Colour::Blue}}, "a colour")
      .field("sizes", &Toy::sizes, {4, 2}, "sizes")
      .within(1, 8)
      .field("names", &Toy::names, {}, "names");
  return schema;
}

}  // namespace

TEST_CASE("settings: a resolved config fills every member, defaults where the config is silent", "[training][config]") {
  const SettingsSchema<Toy> schema = toySchema();
  const Toy defaults = schema.read(json::object());
  CHECK(defaults.count == 3);
  CHECK(defaults.rate == 0.5);
  CHECK(defaults.flag);
  CHECK(defaults.mode == "fast");
  CHECK(defaults.colour == Colour::Blue);
  CHECK(defaults.sizes == std::vector<int64_t>{4, 2});
  CHECK(defaults.names.empty());
  CHECK(schema.keys().defaults()["colour"] == "blue");

  const Toy set = schema.read(schema.keys().resolve(
      std::nullopt, {"count=10", "rate=0.25", "flag=false", "mode=slow", "colour=red", "sizes=8,1", "names=[\"a\"]"}));
  CHECK(set.count == 10);
  CHECK(set.rate == 0.25);
  CHECK_FALSE(set.flag);
  CHECK(set.mode == "slow");
  CHECK(set.colour == Colour::Red);
  CHECK(set.sizes == std::vector<int64_t>{8, 1});
  CHECK(set.names == std::vector<std::string>{"a"});
}

TEST_CASE("settings: ranges, open ends and allowed values are checked, naming the key", "[training][config][errors]") {
  const SettingsSchema<Toy> schema = toySchema();
  const ConfigSchema &keys = schema.keys();
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"count=11"}), Contains("count") && Contains("must be in [1, 10]"));
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"rate=1"}), Contains("rate") && Contains("must be in (0, 1)"));
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"rate=0"}), Contains("must be in (0, 1)"));
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"mode=medium"}),
                    Contains("mode") && Contains("must be one of fast, slow"));
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"colour=green"}),
                    Contains("colour") && Contains("must be one of red, blue"));
  CHECK_THROWS_WITH(keys.resolve(std::nullopt, {"sizes=4,9"}), Contains("sizes") && Contains("each item"));
  // A config built by hand is checked as a resolved one is.
  CHECK_THROWS_AS(schema.read({{"count", 0}}), UsageError);
  CHECK_THROWS_WITH(schema.read({{"count", 0}}), Contains("count: must be in [1, 10]"));
  CHECK_THROWS_WITH(schema.read({{"mode", "medium"}}), Contains("mode"));
  CHECK_THROWS_WITH(schema.read({{"colour", 1}}), Contains("colour") && Contains("string"));
  CHECK_THROWS_WITH(schema.read({{"counts", 3}}), Contains("counts: unknown config key"));
}

TEST_CASE("settings: every trainer declares each key once, and its defaults satisfy its own ranges",
          "[training][config]") {
  auto check = [](const ConfigSchema &keys) {
    std::set<std::string> names;
    for (const ConfigSchema::Key &key : keys.keys()) {
      INFO(key.name);
      CHECK(names.insert(key.name).second);
      CHECK(checkConfigValue(key.defaultValue, key).empty());
      CHECK_FALSE(key.help.empty());
    }
  };
  check(ppoSettingsSchema().keys());
  check(bcSettingsSchema().keys());
  check(esSettingsSchema().keys());
  check(passPredictorSettingsSchema().keys());
}

TEST_CASE("settings: the ranges the PPO schema and its old validator disagreed on have one answer",
          "[training][config][errors]") {
  const ConfigSchema &keys = ppoSettingsSchema().keys();
  // Refused: a run of no iterations, a zero delta, clipping of 1.
  for (const char *refused :
       {"num_policy_iterations=0", "num_iterations=0", "reward_delta=0", "importance_ratio_clipping=1",
        "moving_average_decay_rate=1.5", "segment_reward=sum", "activation=sigmoid"}) {
    INFO(refused);
    CHECK_THROWS_AS(keys.resolve(std::nullopt, {refused}), UsageError);
  }
  // Accepted: a decay of 1 keeps the default's value as the baseline.
  const PPOSettings settings =
      readPPOSettings(keys.resolve(std::nullopt, {"moving_average_decay_rate=1", "importance_ratio_clipping=0.99",
                                                  "activation=tanh", "segment_reward=module_share"}));
  CHECK(settings.decay == 1);
  CHECK(settings.importanceRatioClipping == 0.99);
  CHECK(settings.activation == Activation::Tanh);
  CHECK(settings.segmentReward == "module_share");
  CHECK(readESSettings(esSettingsSchema().keys().resolve(std::nullopt, {"fitness_shaping=zscores"})).shaping ==
        FitnessShaping::ZScores);
}
