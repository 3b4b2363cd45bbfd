#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/serve/channel_policy.h"
#include "mlgo/serve/interactive_server.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// Lets a position policy decide in mlgo's own compile and records what it
/// was shown and what it chose, in order.
class RecordingSteer final : public regalloc::EvictionSteer {
 public:
  explicit RecordingSteer(const PositionPolicy &policy) : policy_(policy) {}
  int64_t decide(const regalloc::EvictionObservation &observation) override {
    std::vector<int64_t> words(regalloc::decisionSpec().decisionWords(), 0);
    std::memcpy(words.data(), observation.featureBytes.data(), observation.featureBytes.size());
    const int64_t position = policy_.decide(words.data());
    features.insert(features.end(), words.begin(), words.end());
    actions.push_back(position);
    return position;
  }
  std::vector<int64_t> features;
  std::vector<int64_t> actions;

 private:
  const PositionPolicy &policy_;
};

}  // namespace

TEST_CASE("serve --problem regalloc: a stock clang-19 allocates registers as the served policy decides, "
          "as in mlgo's own compile",
          "[serve][regalloc][clang]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  const PositionPolicy policy = test::regallocPolicyScoringBy("liverange_size");
  policy.save(scratch / "policy");
  const std::unique_ptr<serve::ChannelPolicy> served = findProblem("regalloc").channelPolicy(scratch / "policy");
  const fs::path base = scratch / "channel";
  serve::ServeOptions options;
  options.channelBase = base;
  options.maxSessions = corpus.modules.size();
  options.traceDirectory = scratch / "served";
  auto server = std::async(std::launch::async, [&] { return serve::serveChannel(*served, options); });
  while (!fs::exists(base.string() + ".out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  // A stock clang-19 per module, one after the other, with LLVM's flags.
  const std::vector<std::string> interactive{"-mllvm", "-regalloc-enable-advisor=release", "-mllvm",
                                             "-regalloc-evict-interactive-channel-base=" + base.string()};
  CHECK(served->compilerFlags(base.string()) ==
        "-mllvm -regalloc-enable-advisor=release -mllvm -regalloc-evict-interactive-channel-base=" + base.string());
  std::vector<uint64_t> clangText;
  fs::create_directories(scratch / "objects");
  for (const CorpusModule &module : corpus.modules) {
    const CompileResult result = compileWithClangSubprocess(test::clangPath(), module, scratch / "objects",
                                                            std::chrono::seconds(60), interactive);
    INFO(module.name << ": " << result.message);
    REQUIRE(result.ok());
    clangText.push_back(result.sizes.text);
  }
  REQUIRE(server.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  const serve::ServeSummary summary = server.get();
  CHECK(summary.sessions == corpus.modules.size());
  CHECK(summary.incompleteSessions == 0);

  // The same policy in mlgo's driver: the same decisions on the same
  // features, in the same order, and the same code size.
  std::vector<int64_t> ownFeatures, ownActions;
  std::vector<uint64_t> ownText;
  CompilerDriver driver(test::driverThreads(1));
  for (const CorpusModule &module : corpus.modules) {
    auto steer = std::make_shared<RecordingSteer>(policy);
    const CompileResult result = driver.compile({&module, "", {std::make_shared<regalloc::EvictionHook>(steer)}});
    REQUIRE(result.ok());
    ownText.push_back(result.sizes.text);
    ownFeatures.insert(ownFeatures.end(), steer->features.begin(), steer->features.end());
    ownActions.insert(ownActions.end(), steer->actions.begin(), steer->actions.end());
  }
  std::vector<int64_t> servedFeatures, servedActions;
  trace::TraceReader(scratch / "served").forEachModule([&](const trace::ModuleTrace &module) {
    servedFeatures.insert(servedFeatures.end(), module.features.begin(), module.features.end());
    servedActions.insert(servedActions.end(), module.actions.begin(), module.actions.end());
  });
  REQUIRE(ownActions.size() > 20);
  CHECK(summary.decisions == ownActions.size());
  CHECK(servedActions == ownActions);
  CHECK(servedFeatures == ownFeatures);
  CHECK(clangText == ownText);
  // And the policy is not the default: it changes some evictions.
  uint64_t changed = 0;
  for (const CorpusModule &module : corpus.modules) {
    auto hook = std::make_shared<regalloc::EvictionHook>(std::make_shared<RecordingSteer>(policy));
    driver.compile({&module, "", {hook}});
    changed += hook->changedDecisions();
  }
  CHECK(changed > 0);
}

TEST_CASE("serve --problem regalloc: another feature set is refused, naming the feature", "[serve][regalloc][errors]") {
  test::ScratchDirectory scratch;
  test::regallocPolicyScoringBy("position").save(scratch / "policy");
  const std::unique_ptr<serve::ChannelPolicy> served = findProblem("regalloc").channelPolicy(scratch / "policy");
  std::vector<serve::TensorSpecification> features;
  for (const trace::FeatureTensor &tensor : regalloc::decisionSpec().features)
    features.push_back({tensor.name, tensor.typeName(), tensor.shape, tensor.elementBytes()});
  features[3].type = "int64_t";  // nr_broken_hints is float in LLVM 19
  const serve::LogHeader header = serve::parseLogHeader(serve::formatLogHeader(features, std::nullopt), "channel.out");
  CHECK_THROWS_WITH(served->connect(header, "channel.out"),
                    Catch::Contains("channel.out") && Catch::Contains("nr_broken_hints"));
  features.pop_back();
  CHECK_THROWS_WITH(served->connect(serve::parseLogHeader(serve::formatLogHeader(features, std::nullopt), "c"), "c"),
                    Catch::Contains("20 features, expected 21"));
}
