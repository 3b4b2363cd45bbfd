// A regalloc-priority policy served to a stock clang-19: LLVM's own ML
// priority advisor (release mode, interactive channel) asks mlgo serve for
// every live range's priority, and the code equals mlgo's own compile with
// the same policy.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/priority_hook.h"
#include "mlgo/serve/channel_policy.h"
#include "mlgo/serve/interactive_server.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// Lets a continuous policy decide in mlgo's own compile, as a served one does,
/// and records what it was shown and what it answered, in order.
class RecordingSteer final : public regalloc::PrioritySteer {
 public:
  explicit RecordingSteer(const ContinuousPolicy &policy) : policy_(policy) {}
  double decide(const regalloc::PriorityObservation &observation) override {
    std::vector<int64_t> words(regalloc::priorityDecisionSpec().decisionWords(), 0);
    words[0] = observation.size;
    words[1] = observation.stage;
    std::memcpy(&words[2], &observation.weight, sizeof observation.weight);
    const float answer = policy_.floatAnswer(words.data(), regalloc::kLargestPriority);
    features.insert(features.end(), words.begin(), words.end());
    answers.push_back(answer);
    changed += static_cast<uint32_t>(answer) != observation.defaultPriority;
    return answer;
  }
  std::vector<int64_t> features;
  std::vector<float> answers;
  size_t changed = 0;

 private:
  const ContinuousPolicy &policy_;
};

/// A random priority policy saved in `scratch`/policy and served on
/// `scratch`/channel for `sessions` compiles, its trace in `scratch`/served.
struct PriorityServer {
  PriorityServer(const fs::path &scratch, size_t sessions)
      : policy(test::randomPriorityPolicy(11)), base(scratch / "channel") {
    policy.save(scratch / "policy");
    served = findProblem("regalloc-priority").channelPolicy(scratch / "policy");
    options.channelBase = base;
    options.maxSessions = sessions;
    options.traceDirectory = scratch / "served";
    server = std::async(std::launch::async, [this] { return serve::serveChannel(*served, options); });
    while (!fs::exists(base.string() + ".out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ContinuousPolicy policy;
  fs::path base;
  std::unique_ptr<serve::ChannelPolicy> served;
  serve::ServeOptions options;
  std::future<serve::ServeSummary> server;
};

}  // namespace

TEST_CASE("serve a regalloc-priority policy: a stock clang-19 takes its priorities, as mlgo's own compile does",
          "[serve][regalloc][priority][clang]") {
  test::ScratchDirectory scratch;
  // Modules whose every function goes through the greedy allocator: LLVM
  // opens the channel only when it first asks for a priority.
  const Corpus corpus = test::sourcesCorpus(
      scratch / "corpus", {test::testData() / "regalloc/pressure.c", test::testData() / "regalloc/kernels.c"}, "-O2");
  PriorityServer serving(scratch.path(), corpus.modules.size());
  const ContinuousPolicy &policy = serving.policy;
  const std::unique_ptr<serve::ChannelPolicy> &served = serving.served;
  const fs::path &base = serving.base;
  std::future<serve::ServeSummary> &server = serving.server;

  // A stock clang-19 per module, one after the other, with the flags serve prints.
  const std::vector<std::string> interactive{"-mllvm", "-regalloc-enable-priority-advisor=release", "-mllvm",
                                             "-regalloc-priority-interactive-channel-base=" + base.string()};
  CHECK(served->compilerFlags(base.string()) == "-mllvm -regalloc-enable-priority-advisor=release -mllvm "
                                                "-regalloc-priority-interactive-channel-base=" + base.string());
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

  // The same policy in mlgo's driver: the same features, in the same order,
  // the same answers and the same code size.
  std::vector<int64_t> ownFeatures;
  std::vector<float> ownAnswers;
  std::vector<uint64_t> ownText;
  size_t changed = 0;
  CompilerDriver driver(test::driverThreads(1));
  for (const CorpusModule &module : corpus.modules) {
    auto steer = std::make_shared<RecordingSteer>(policy);
    const CompileResult result = driver.compile({&module, "", {std::make_shared<regalloc::PriorityHook>(steer)}});
    REQUIRE(result.ok());
    ownText.push_back(result.sizes.text);
    ownFeatures.insert(ownFeatures.end(), steer->features.begin(), steer->features.end());
    ownAnswers.insert(ownAnswers.end(), steer->answers.begin(), steer->answers.end());
    changed += steer->changed;
  }
  std::vector<int64_t> servedFeatures;
  std::vector<float> servedAnswers;
  trace::TraceReader servedTrace(scratch / "served");
  CHECK(servedTrace.problem() == "regalloc-priority");
  servedTrace.forEachModule([&](const trace::ModuleTrace &module) {
    servedFeatures.insert(servedFeatures.end(), module.features.begin(), module.features.end());
    servedAnswers.insert(servedAnswers.end(), module.values.begin(), module.values.end());
  });
  REQUIRE(ownAnswers.size() > 20);
  CHECK(summary.decisions == ownAnswers.size());
  CHECK(servedAnswers == ownAnswers);
  CHECK(servedFeatures == ownFeatures);
  CHECK(clangText == ownText);
  CHECK(changed > 0);  // the policy is not the default's priorities
}

TEST_CASE("serve a regalloc-priority policy: a stock llc-19 takes its priorities too", "[serve][regalloc][priority]") {
  test::ScratchDirectory scratch;
  // clang's -O2 IR, then llc-19's code generation asking mlgo serve for each priority.
  const std::string ir = (scratch / "pressure.bc").string();
  REQUIRE(test::runProgram(test::clangPath(), {"-O2", "-c", "-emit-llvm", (test::testData() / "regalloc/pressure.c")
                                                                               .string(), "-o", ir})
              .exitCode == 0);
  const std::string llc = fs::exists("/usr/lib/llvm-19/bin/llc") ? "/usr/lib/llvm-19/bin/llc" : "llc-19";
  const test::CommandOutcome plain =
      test::runProgram(llc, {"-O2", "-filetype=obj", ir, "-o", (scratch / "plain.o").string()});
  REQUIRE(plain.exitCode == 0);

  PriorityServer serving(scratch.path(), 1);
  const ContinuousPolicy &policy = serving.policy;
  const fs::path &base = serving.base;
  std::future<serve::ServeSummary> &server = serving.server;
  const test::CommandOutcome steered =
      test::runProgram(llc, {"-O2", "-filetype=obj", "-regalloc-enable-priority-advisor=release",
                             "-regalloc-priority-interactive-channel-base=" + base.string(), ir, "-o",
                             (scratch / "served.o").string()});
  INFO(steered.err);
  REQUIRE(steered.exitCode == 0);
  REQUIRE(server.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  const serve::ServeSummary summary = server.get();
  CHECK(summary.sessions == 1);
  CHECK(summary.decisions > 20);
  // Every answer is the policy's for the features llc sent, as LLVM reads it.
  size_t decisions = 0;
  trace::TraceReader(scratch / "served").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions)
      CHECK(module.values[d] == policy.floatAnswer(module.featuresOf(d), regalloc::kLargestPriority));
  });
  CHECK(decisions == summary.decisions);
  CHECK(readFile(scratch / "served.o") != readFile(scratch / "plain.o"));  // the priorities changed the code
}

TEST_CASE("serve a regalloc-priority policy: another feature set or an integer advice is refused",
          "[serve][regalloc][priority][errors]") {
  test::ScratchDirectory scratch;
  test::randomPriorityPolicy(3).save(scratch / "policy");
  const std::unique_ptr<serve::ChannelPolicy> served =
      findProblem("regalloc-priority").channelPolicy(scratch / "policy");
  std::vector<serve::TensorSpecification> features;
  for (const trace::FeatureTensor &tensor : regalloc::priorityDecisionSpec().features)
    features.push_back({tensor.name, tensor.typeName(), tensor.shape, tensor.elementBytes()});
  features[2].type = "double";  // weight is a float in LLVM 19
  features[2].elementSize = 8;
  CHECK_THROWS_WITH(served->connect(serve::parseLogHeader(serve::formatLogHeader(features, std::nullopt), "c.out"),
                                    "c.out"),
                    Catch::Contains("c.out") && Catch::Contains("weight"));

  // LLVM's features, but an integer answer asked for: the server refuses it.
  features[2].type = "float";
  features[2].elementSize = 4;
  serve::ServeOptions options;
  options.channelBase = scratch / "channel";
  auto server = std::async(std::launch::async, [&] { return serve::serveChannel(*served, options); });
  while (!fs::exists(scratch / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  {
    // The compiler's side, in the order LLVM opens it.
    const int fromServer = ::open((scratch / "channel.in").c_str(), O_RDONLY);
    const int toServer = ::open((scratch / "channel.out").c_str(), O_WRONLY);
    const std::string header = serve::formatLogHeader(features, serve::scalarInt64("priority")) + "\n";
    CHECK(::write(toServer, header.data(), header.size()) == ssize_t(header.size()));
    ::close(toServer);
    ::close(fromServer);
  }
  CHECK_THROWS_WITH(server.get(), Catch::Contains("channel.out: header: advice") &&
                                      Catch::Contains("expected one real value, got int64_t"));
}
