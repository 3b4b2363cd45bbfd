// A training command's config in layers: the built-in defaults, the
// problem's own file, --config, then --set; --print-config names the layer of
// every value (src/cli/common_options.cpp, the problems' configFile).
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

struct Printed {
  std::string value, origin;
};

/// --print-config's lines, "key = value  # origin", by key.
std::map<std::string, Printed> printedConfig(const std::vector<std::string> &args) {
  const test::CommandOutcome outcome = test::runMlgo(args);
  INFO(outcome.err);
  REQUIRE(outcome.exitCode == exit_code::kSuccess);
  std::map<std::string, Printed> printed;
  std::istringstream lines(outcome.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t equals = line.find(" = "), hash = line.find("  # ");
    REQUIRE(equals != std::string::npos);
    REQUIRE(hash != std::string::npos);
    std::string key = line.substr(0, equals);
    key.erase(key.find_last_not_of(' ') + 1);
    printed[key] = {line.substr(equals + 3, hash - equals - 3), line.substr(hash + 4)};
  }
  return printed;
}

}  // namespace

TEST_CASE("training config: regalloc-priority's PPO defaults come from its own file, which --print-config names",
          "[cli][config]") {
  auto printed = printedConfig({"train-ppo", "--problem", "regalloc-priority", "--print-config"});
  CHECK(printed["reward_metric"].value == "\"regalloc_score\"");
  CHECK_THAT(printed["reward_metric"].origin,
             Contains("problem file") && Contains("configs/regalloc/priority-ppo.json"));
  CHECK(printed["reward_scope"].value == "\"function\"");
  CHECK(printed["learning_rate"].value == "0.0003");
  // What the file does not change stays the built-in default, and says so.
  CHECK(printed["value_std"].value == "0.1");
  CHECK(printed["value_std"].origin == "default");
  CHECK(printed["entropy_regularization"].origin == "default");
  // Eviction has its own file; inlining's changes nothing.
  CHECK_THAT(printedConfig({"train-ppo", "--problem", "regalloc", "--print-config"})["reward_metric"].origin,
             Contains("configs/regalloc/ppo.json"));
  auto inlining = printedConfig({"train-ppo", "--print-config"});
  CHECK(inlining["reward_metric"].value == "\"text\"");
  CHECK(inlining["reward_metric"].origin == "default");
}

TEST_CASE("training config: --config over the problem's file, --set over both", "[cli][config]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "mine.json", R"({"learning_rate": 0.002, "num_modules": 9})");
  auto printed = printedConfig({"train-ppo", "--problem", "regalloc", "--config", (scratch / "mine.json").string(),
                                "--set", "num_modules=4", "--print-config"});
  CHECK(printed["learning_rate"].value == "0.002");
  CHECK(printed["learning_rate"].origin == "--config " + (scratch / "mine.json").string());
  CHECK(printed["num_modules"].value == "4");
  CHECK(printed["num_modules"].origin == "--set");
  CHECK(printed["batch_size"].value == "128");
  CHECK_THAT(printed["batch_size"].origin, Contains("problem file"));
  CHECK(printed["adam_epsilon"].origin == "default");

  // A bad value in the problem-independent layers names the file and the key.
  writeFileAtomically(scratch / "bad.json", R"({"importance_ratio_clipping": 2})");
  auto bad = test::runMlgo(
      {"train-ppo", "--problem", "regalloc", "--config", (scratch / "bad.json").string(), "--print-config"});
  CHECK(bad.exitCode == exit_code::kBadInput);
  CHECK_THAT(bad.err, Contains("bad.json") && Contains("importance_ratio_clipping") && Contains("must be in (0, 1)"));
}

TEST_CASE("training config: every training command prints its config with origins", "[cli][config]") {
  auto es = printedConfig({"train-es", "--problem", "regalloc", "--set", "sigma=0.5", "--print-config"});
  CHECK(es["sigma"].value == "0.5");
  CHECK(es["sigma"].origin == "--set");
  CHECK(es["fitness_shaping"].origin == "default");
  auto inliningEs = printedConfig({"train-es", "--print-config"});
  CHECK(inliningEs["iterations"].value == "100");

  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "imitation.json", R"({"gain_weight": 1.0})");
  auto bc = printedConfig({"train-bc", "--config", (scratch / "imitation.json").string(), "--print-config"});
  CHECK(bc["gain_weight"].value == "1.0");
  CHECK_THAT(bc["gain_weight"].origin, Contains("--config"));
  CHECK(bc["iterations"].value == "100000");

  auto predictor = printedConfig({"train-pass-predictor", "--set", "epochs=7", "--print-config"});
  CHECK(predictor["epochs"].value == "7");
  CHECK(predictor["epochs"].origin == "--set");
  CHECK(predictor["validation_folds"].origin == "default");
}

TEST_CASE("training config: --help names each problem's own file, not inlining's for all", "[cli][config]") {
  const test::CommandOutcome help = test::runMlgo({"train-ppo", "--help"});
  REQUIRE(help.exitCode == exit_code::kSuccess);
  CHECK_THAT(help.out, Contains("regalloc-priority: configs/regalloc/priority-ppo.json"));
  const test::CommandOutcome es = test::runMlgo({"train-es", "--help"});
  CHECK_THAT(es.out, Contains("inlining: configs/inlining/es.json") && Contains("regalloc: none"));
}

TEST_CASE("training config: each file a problem names is shipped", "[cli][config]") {
  for (const std::string &name : problemNames())
    for (const char *learner : {"bc", "ppo", "es"}) {
      const std::string file = findProblem(name).configFile(learner);
      if (file.empty()) continue;
      INFO(name << " " << learner << ": " << file);
      CHECK(fs::is_regular_file(test::testData() / "../../configs" / file));
    }
}
