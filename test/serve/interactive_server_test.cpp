#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/problems/inlining/inlining_channel_policy.h"
#include "mlgo/serve/interactive_server.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <thread>

#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/problems/inlining/neural_policy.h"
#include "mlgo/serve/training_log.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// Plays the compiler's side of the channel, in the order LLVM opens it.
class FakeCompiler {
 public:
  explicit FakeCompiler(const fs::path &base)
      : fromServer_(::open((base.string() + ".in").c_str(), O_RDONLY)),
        toServer_(::open((base.string() + ".out").c_str(), O_WRONLY)) {}
  ~FakeCompiler() { close(); }
  void send(const std::string &bytes) {
    REQUIRE(::write(toServer_, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
  }
  int64_t receiveDecision() {
    int64_t decision = -1;
    REQUIRE(::read(fromServer_, &decision, sizeof decision) == sizeof decision);
    return decision;
  }
  void close() {
    if (toServer_ >= 0) ::close(toServer_);
    if (fromServer_ >= 0) ::close(fromServer_);
    toServer_ = fromServer_ = -1;
  }

 private:
  int fromServer_, toServer_;
};

std::string inliningHeader() {
  std::vector<serve::TensorSpecification> features;
  for (const std::string &name : inlining::featureNames()) features.push_back(serve::scalarInt64(name));
  return serve::formatLogHeader(features, serve::scalarInt64(inlining::decisionName())) + "\n";
}

std::string observation(int id, const std::vector<int64_t> &features) {
  std::string bytes = "{\"observation\":" + std::to_string(id) + "}\n";
  bytes.append(reinterpret_cast<const char *>(features.data()), features.size() * sizeof(int64_t));
  return bytes + "\n";
}

struct ServedPolicy {
  std::shared_ptr<const YesNoPolicy> model;
  std::shared_ptr<NeuralInliningPolicy> policy;
  explicit ServedPolicy(YesNoPolicy trained)
      : model(std::make_shared<const YesNoPolicy>(std::move(trained))),
        policy(std::make_shared<NeuralInliningPolicy>(model)) {}
};

std::future<serve::ServeSummary> startServer(const inlining::Policy &policy, serve::ServeOptions options) {
  return std::async(std::launch::async, [&policy, options] { return inlining::serveInlining(policy, options); });
}


/// A server for two compilations on the traced test corpus's channel,
/// recording each session's report; waiting for compilers.
struct TwoSessions {
  test::TracedTestCorpus traced;
  ServedPolicy served{test::randomInliningPolicy(traced, 4)};
  serve::ServeOptions options;
  std::vector<serve::SessionReport> sessions;
  std::atomic<size_t> finished{0};
  std::future<serve::ServeSummary> server;
  TwoSessions() {
    options.channelBase = traced / "channel";
    options.maxSessions = 2;
    options.onSession = [this](const serve::SessionReport &session) {
      sessions.push_back(session);
      ++finished;
    };
    server = startServer(*served.policy, options);
    while (!fs::exists(traced / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
};

}  // namespace

TEST_CASE("serve: a stock clang-19 compiles with the served policy to the sizes mlgo eval measures", "[serve][clang]") {
  test::TracedTestCorpus traced;
  ServedPolicy served(test::randomInliningPolicy(traced, 9));
  const fs::path base = traced / "channel";

  std::vector<serve::SessionReport> sessions;
  serve::ServeOptions options;
  options.channelBase = base;
  options.maxSessions = traced.corpus.modules.size();
  options.traceDirectory = traced / "served-trace";
  options.onSession = [&sessions](const serve::SessionReport &session) { sessions.push_back(session); };
  std::future<serve::ServeSummary> server = startServer(*served.policy, options);

  // One clang per module, one after the other, as `clang-19 -cc1 <recorded
  // args> -x ir module.bc` plus LLVM's interactive inliner flags.
  const std::vector<std::string> interactive{"-mllvm", "-enable-ml-inliner=release", "-mllvm",
                                             "-inliner-interactive-channel-base=" + base.string(),
                                             "-mllvm", inlining::advisorSizeFlag()};
  std::vector<std::string> clangSizes;
  fs::create_directories(traced / "objects");
  for (const CorpusModule &module : traced.corpus.modules) {
    const CompileResult result = compileWithClangSubprocess(test::clangPath(), module, traced / "objects",
                                                            std::chrono::seconds(60), interactive);
    INFO(module.name << ": " << result.message);
    REQUIRE(result.ok());
    clangSizes.push_back(module.name + ":" + std::to_string(result.sizes.text));
  }
  REQUIRE(server.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  const serve::ServeSummary summary = server.get();
  CHECK(summary.sessions == traced.corpus.modules.size());
  CHECK(summary.incompleteSessions == 0);

  // The same policy inside mlgo's driver.
  EvalOptions evalOptions;
  auto recorded = std::make_shared<test::RecordingPolicy>(served.policy);
  evalOptions.candidateHooks = inlining::hooksFor(recorded);
  const EvalReport report = evaluateCorpus(traced.corpus, CompilerDriver(test::driverThreads(1)), evalOptions);
  std::vector<std::string> driverSizes;
  for (const ModuleEvaluation &module : report.modules)
    driverSizes.push_back(module.name + ":" + std::to_string(module.candidate.sizes.text));
  CHECK(clangSizes == driverSizes);
  // Sizes must differ from -Oz somewhere, or they prove little.
  CHECK(report.candidateTotals.sizes.text != report.baselineTotals.sizes.text);

  // The trace of what was served holds the same features and decisions.
  std::vector<int64_t> features;
  std::vector<bool> decisions;
  trace::TraceReader(traced / "served-trace").forEachModule([&](const trace::ModuleTrace &module) {
    features.insert(features.end(), module.features.begin(), module.features.end());
    decisions.insert(decisions.end(), module.actions.begin(), module.actions.end());
    CHECK(module.decisions() == sessions.at(module.position).decisions);
  });
  CHECK(summary.decisions == recorded->decisions.size());
  CHECK(decisions == recorded->decisions);
  CHECK(features == recorded->features);
  // Pipes the server made are gone.
  CHECK_FALSE(fs::exists(base.string() + ".in"));
  CHECK_FALSE(fs::exists(base.string() + ".out"));
}

TEST_CASE("serve: a compiler dying mid-observation ends its session only", "[serve]") {
  TwoSessions two;
  auto &[traced, served, options, sessions, finished, server] = two;

  std::vector<int64_t> features(inlining::featureCount());
  for (size_t f = 0; f < features.size(); ++f) features[f] = int64_t(f * 3 % 11);
  {
    FakeCompiler dying(options.channelBase);
    dying.send(inliningHeader() + "{\"context\":\"\"}\n");
    dying.send(observation(0, features).substr(0, 100));
  }
  // The next compiler starts once the first is gone, as in a build. (One
  // that opens the channel within microseconds of the previous compiler's
  // connection, before the server has swapped in fresh pipes, would join that
  // session: see interactive_server.h.)
  while (finished == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  int64_t answer = -1;
  {
    FakeCompiler healthy(options.channelBase);
    healthy.send(inliningHeader() + "{\"context\":\"m\"}\n" + observation(0, features));
    answer = healthy.receiveDecision();
  }
  const serve::ServeSummary summary = server.get();
  CHECK(summary.sessions == 2);
  CHECK(summary.incompleteSessions == 1);
  REQUIRE(sessions.size() == 2);
  CHECK_THAT(sessions[0].problem, Catch::Contains("middle of observation 0"));
  CHECK(sessions[1].problem.empty());
  CHECK(sessions[1].context == "m");
  CHECK(sessions[1].decisions == 1);
  CHECK(answer == (served.model->decide(features.data()) ? 1 : 0));
}

TEST_CASE("serve: a compiler cut off in the middle of its header ends its session only", "[serve]") {
  TwoSessions two;
  auto &[traced, served, options, sessions, finished, server] = two;
  const std::string header = inliningHeader();
  {
    FakeCompiler cut(options.channelBase);
    cut.send(header.substr(0, header.size() / 2));
  }
  while (finished == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<int64_t> features(inlining::featureCount(), 1);
  int64_t answer = -1;
  {
    FakeCompiler healthy(options.channelBase);
    healthy.send(header + "{\"context\":\"m\"}\n" + observation(0, features));
    answer = healthy.receiveDecision();
  }
  const serve::ServeSummary summary = server.get();
  CHECK(summary.sessions == 2);
  CHECK(summary.incompleteSessions == 1);
  REQUIRE(sessions.size() == 2);
  CHECK_THAT(sessions[0].problem, Catch::Contains("middle of the header"));
  CHECK(sessions[1].problem.empty());
  CHECK(answer == (served.model->decide(features.data()) ? 1 : 0));
}

TEST_CASE("serve: a second server on a served channel is refused and leaves the first one working", "[serve][errors]") {
  test::TracedTestCorpus traced;
  ServedPolicy served(test::randomInliningPolicy(traced, 4));
  serve::ServeOptions options;
  options.channelBase = traced / "channel";
  options.maxSessions = 1;
  std::future<serve::ServeSummary> first = startServer(*served.policy, options);
  while (!fs::exists(traced / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  CHECK_THROWS_WITH(inlining::serveInlining(*served.policy, options),
                    Catch::Contains("channel " + options.channelBase.string() + " is already served"));
  CHECK(fs::is_fifo(traced / "channel.in"));
  CHECK(fs::is_fifo(traced / "channel.out"));

  std::vector<int64_t> features(inlining::featureCount(), 2);
  int64_t answer = -1;
  {
    FakeCompiler compiler(options.channelBase);
    compiler.send(inliningHeader() + "{\"context\":\"m\"}\n" + observation(0, features));
    answer = compiler.receiveDecision();
  }
  const serve::ServeSummary summary = first.get();
  CHECK(summary.sessions == 1);
  CHECK(summary.decisions == 1);
  CHECK(answer == (served.model->decide(features.data()) ? 1 : 0));
  // Released when the server returns: the channel can be served again.
  CHECK_FALSE(fs::exists(traced / "channel.lock"));
  options.maxSessions = 0;
  std::atomic<bool> stop{true};
  options.stop = &stop;
  CHECK(inlining::serveInlining(*served.policy, options).sessions == 0);
}

TEST_CASE("serve: malformed headers and other feature sets are refused clearly", "[serve][errors]") {
  test::TracedTestCorpus traced;
  ServedPolicy served(test::randomInliningPolicy(traced, 4));
  serve::ServeOptions options;
  options.channelBase = traced / "channel";
  const std::string header = GENERATE(std::string("not a header\n"),
                                      serve::formatLogHeader({serve::scalarInt64("sroa_savings")}, std::nullopt) + "\n",
                                      serve::formatLogHeader({{"sroa_savings", "float", {1}, 4}}, std::nullopt) + "\n");
  std::future<serve::ServeSummary> server = startServer(*served.policy, options);
  while (!fs::exists(traced / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  {
    FakeCompiler compiler(options.channelBase);
    compiler.send(header);
  }
  try {
    server.get();
    FAIL("the server accepted a bad header");
  } catch (const InputError &e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("channel.out: header"));
    CHECK((message.find("not JSON") != std::string::npos ||
           message.find("feature set does not match") != std::string::npos ||
           message.find("LLVM 19's inliner sends one int64_t") != std::string::npos));
  }
  CHECK_FALSE(fs::exists(traced / "channel.in"));
}

TEST_CASE("serve: channels that cannot be made are usage errors", "[serve][errors]") {
  test::TracedTestCorpus traced;
  ServedPolicy served(test::randomInliningPolicy(traced, 4));
  serve::ServeOptions options;
  options.channelBase = traced / "no-such-directory" / "channel";
  CHECK_THROWS_WITH(inlining::serveInlining(*served.policy, options), Catch::Contains("cannot create channel"));
  writeFileAtomically(traced / "file.in", "x");
  options.channelBase = traced / "file";
  CHECK_THROWS_WITH(inlining::serveInlining(*served.policy, options), Catch::Contains("is not a named pipe"));
  CHECK(readFile(traced / "file.in") == "x");
}

namespace {
void ignoreSignal(int) {}
}  // namespace

TEST_CASE("serve: a stop request ends a waiting server, which writes its trace", "[serve]") {
  test::TracedTestCorpus traced;
  ServedPolicy served(test::randomInliningPolicy(traced, 4));
  // SIGUSR1 only interrupts the blocked open() (no SA_RESTART), as mlgo
  // serve's SIGINT handler does.
  struct sigaction action {
  }, previous{};
  action.sa_handler = ignoreSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, &previous);
  std::atomic<bool> stop{false};
  serve::ServeOptions options;
  options.channelBase = traced / "channel";
  options.traceDirectory = traced / "served";
  options.stop = &stop;
  std::promise<pthread_t> serverThread;
  std::future<serve::ServeSummary> server = std::async(std::launch::async, [&] {
    serverThread.set_value(pthread_self());
    return inlining::serveInlining(*served.policy, options);
  });
  const pthread_t thread = serverThread.get_future().get();
  while (!fs::exists(traced / "channel.out")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  // The server may not be inside open() yet: signal until it returns.
  while (server.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) pthread_kill(thread, SIGUSR1);
  CHECK(server.get().sessions == 0);
  sigaction(SIGUSR1, &previous, nullptr);
  CHECK(trace::TraceReader(traced / "served").description()["modules_traced"] == 0);
  CHECK_FALSE(fs::exists(traced / "channel.in"));
}
