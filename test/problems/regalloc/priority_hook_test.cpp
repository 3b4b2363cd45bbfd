#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/problems/regalloc/priority_hook.h"
#include "hooked_compile.h"

using namespace mlgo;
using namespace mlgo::regalloc;

namespace {

/// Answers LLVM's default priority, and keeps what it is shown.
class DefaultSteer final : public PrioritySteer {
 public:
  double decide(const PriorityObservation &observation) override {
    observations.push_back(observation);
    return observation.defaultPriority;
  }
  std::vector<PriorityObservation> observations;
};

/// Allocates the ranges LLVM would allocate last first: the default's
/// priority reversed.
class ReversedSteer final : public PrioritySteer {
 public:
  double decide(const PriorityObservation &observation) override {
    return std::numeric_limits<uint32_t>::max() - observation.defaultPriority;
  }
};

/// Answers what no unsigned priority is.
class InvalidSteer final : public PrioritySteer {
 public:
  explicit InvalidSteer(double answer) : answer_(answer) {}
  double decide(const PriorityObservation &) override { return answer_; }

 private:
  double answer_;
};

using Compiled = test::HookedCompile;
using test::ObjectCapture;
using test::runLinked;

Compiled compileWith(const CompilerDriver &driver, const CorpusModule &module, std::shared_ptr<PrioritySteer> steer,
                     bool withHook = true) {
  return test::compileHooked<PriorityHook>(driver, module, std::move(steer), withHook);
}

Corpus pressureCorpus(const test::ScratchDirectory &scratch) {
  return test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
}

}  // namespace

TEST_CASE("regalloc priority spec: LLVM 19's three features and one continuous decision", "[regalloc][priority]") {
  const trace::DecisionSpec &spec = priorityDecisionSpec();
  REQUIRE(spec.names() == std::vector<std::string>{"li_size", "stage", "weight"});
  CHECK(spec.features[0].type == trace::FeatureTensor::Type::Int64);
  CHECK(spec.features[1].type == trace::FeatureTensor::Type::Int64);
  CHECK(spec.features[2].type == trace::FeatureTensor::Type::Float);
  CHECK(spec.kind() == trace::DecisionKind::Continuous);
  CHECK(std::string(kPriorityDecisionName) == "priority");
}

TEST_CASE("regalloc priority seam: answering the default's priority gives LLVM's default code byte for byte",
          "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = pressureCorpus(scratch);
  const CorpusModule &module = corpus.modules.front();
  CompilerDriver driver({});

  const Compiled stock = compileWith(driver, module, nullptr, /*withHook=*/false);
  const Compiled scored = compileWith(driver, module, nullptr);
  auto steer = std::make_shared<DefaultSteer>();
  const Compiled steered = compileWith(driver, module, steer);
  REQUIRE(stock.result.ok());
  REQUIRE(scored.result.ok());
  INFO(steered.result.message);
  REQUIRE(steered.result.ok());
  REQUIRE(!stock.object.empty());
  CHECK(scored.object == stock.object);
  CHECK(steered.object == stock.object);
  CHECK(steered.problems.empty());
  CHECK(steered.decisions == steer->observations.size());
  CHECK(steered.decisions > 10);
  CHECK(steered.changed == 0);
  // The score is LLVM's regalloc score, as the eviction problem measures it.
  auto eviction = std::make_shared<EvictionHook>();
  REQUIRE(driver.compile({&module, "", {eviction}}).ok());
  CHECK(scored.score > 0);
  CHECK(scored.score == eviction->score());
  CHECK(steered.score == scored.score);
  // The features are a live range's: sizes in slot indexes, the allocator's
  // stages (RS_New = 0 to RS_Done = 6), spill weights (infinite for a range
  // that must not be spilled, as LLVM marks it).
  bool sawSecondStage = false;
  for (const PriorityObservation &observation : steer->observations) {
    CHECK(observation.size >= 0);
    CHECK(observation.stage >= 0);
    CHECK(observation.stage <= 6);
    CHECK(!std::isnan(observation.weight));
    CHECK(observation.weight >= 0);
    CHECK(!observation.function.empty());
    sawSecondStage |= observation.stage > 0;
  }
  CHECK(sawSecondStage);  // re-queued ranges come back in a later stage

  SECTION("the modules of the test project too, at their -Oz") {
    const Corpus project = test::extractTestCorpus(scratch / "project");
    for (const CorpusModule &other : project.modules) {
      INFO(other.name);
      const Compiled plain = compileWith(driver, other, nullptr, false);
      const Compiled byDefault = compileWith(driver, other, std::make_shared<DefaultSteer>());
      if (!plain.result.ok()) continue;  // the project's broken modules fail either way
      REQUIRE(byDefault.result.ok());
      CHECK(byDefault.object == plain.object);
      CHECK(byDefault.problems == std::vector<std::string>());
    }
  }
}

TEST_CASE("regalloc priority seam: other priorities change the code, which still runs correctly",
          "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = pressureCorpus(scratch);
  const CorpusModule &module = corpus.modules.front();
  CompilerDriver driver({});
  const Compiled byDefault = compileWith(driver, module, nullptr);
  const Compiled reversed = compileWith(driver, module, std::make_shared<ReversedSteer>());
  REQUIRE(reversed.result.ok());
  CHECK(reversed.problems.empty());
  CHECK(reversed.changed > 0);
  CHECK(reversed.object != byDefault.object);
  CHECK(reversed.score != byDefault.score);
  CHECK(runLinked(scratch.path(), "reversed", reversed.object) ==
        runLinked(scratch.path(), "default", byDefault.object));
}

TEST_CASE("regalloc priority seam: an answer that is no unsigned priority is refused and the default taken",
          "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = pressureCorpus(scratch);
  CompilerDriver driver({});
  const Compiled stock = compileWith(driver, corpus.modules.front(), nullptr, false);
  for (const double answer : {-1.0, 4294967296.0, std::nan("")}) {
    INFO(answer);
    const Compiled refused = compileWith(driver, corpus.modules.front(), std::make_shared<InvalidSteer>(answer));
    REQUIRE(refused.result.ok());
    CHECK(refused.object == stock.object);
    REQUIRE(!refused.problems.empty());
    CHECK_THAT(refused.problems.front(), Catch::Contains("outside LLVM's unsigned 32-bit priorities"));
  }
}

TEST_CASE("regalloc priority seam: concurrent compiles keep their own steer, whatever --threads",
          "[regalloc][priority]") {
  test::ScratchDirectory scratch;
  const Corpus project = test::extractTestCorpus(scratch / "project");
  auto run = [&](unsigned threads) {
    CompilerDriver driver(test::driverThreads(threads));
    std::vector<std::shared_ptr<ObjectCapture>> captures;
    std::vector<std::shared_ptr<PriorityHook>> hooks;
    std::vector<CompileRequest> requests;
    for (const CorpusModule &module : project.modules) {
      captures.push_back(std::make_shared<ObjectCapture>());
      hooks.push_back(std::make_shared<PriorityHook>(std::make_shared<ReversedSteer>()));
      requests.push_back({&module, "", {captures.back(), hooks.back()}});
    }
    driver.compileAll(requests);
    std::vector<std::string> outcome;
    for (size_t i = 0; i < requests.size(); ++i)
      outcome.push_back(captures[i]->bytes + "|" + std::to_string(hooks[i]->score()) + "|" +
                        std::to_string(hooks[i]->decisionsTaken()));
    return outcome;
  };
  const auto one = run(1);
  CHECK(run(2) == one);
}
