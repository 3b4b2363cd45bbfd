#include <catch2/catch.hpp>

#include "mlgo/problems/regalloc/eviction_hook.h"
#include "hooked_compile.h"

using namespace mlgo;
using namespace mlgo::regalloc;

namespace {

/// Answers what LLVM's default advisor chose, and checks what it is shown.
class DefaultSteer final : public EvictionSteer {
 public:
  int64_t decide(const EvictionObservation &observation) override {
    ++decisions;
    maskedDefault += !observation.mask.at(observation.defaultPosition);
    featureBytes = observation.featureBytes.size();
    return observation.defaultPosition;
  }
  int decisions = 0, maskedDefault = 0;
  size_t featureBytes = 0;
};

/// Evicts the first allowed register other than the default's choice.
class OtherRegisterSteer final : public EvictionSteer {
 public:
  int64_t decide(const EvictionObservation &observation) override {
    for (int64_t position = 0; position < kCandidatePosition; ++position)
      if (observation.mask[position] && position != observation.defaultPosition) return position;
    return observation.defaultPosition;
  }
};

class OutOfMaskSteer final : public EvictionSteer {
 public:
  int64_t decide(const EvictionObservation &) override { return 99; }
};

using Compiled = test::HookedCompile;
using test::ObjectCapture;
using test::runLinked;

Compiled compileWith(const CompilerDriver &driver, const CorpusModule &module, std::shared_ptr<EvictionSteer> steer,
                     bool withHook = true) {
  return test::compileHooked<EvictionHook>(driver, module, std::move(steer), withHook);
}

}  // namespace

TEST_CASE("regalloc decision spec: LLVM 19's eviction features, names, types and shapes", "[regalloc]") {
  const auto &specs = decisionSpec().features;
  REQUIRE(specs.size() == 21);
  CHECK(specs.front().name == "mask");
  CHECK(specs.front().type == trace::FeatureTensor::Type::Int64);
  CHECK(specs.front().shape == std::vector<int64_t>{1, 33});
  CHECK(specs[2].name == "nr_urgent");
  CHECK(specs[2].type == trace::FeatureTensor::Type::Float);
  CHECK(specs.back().name == "progress");
  CHECK(specs.back().shape == std::vector<int64_t>{1});
  CHECK(decisionSpec().actions == 33);
  // 6 int64 and 14 float tensors of 33 positions, and progress.
  CHECK(decisionSpec().decisionBytes() == 6 * 33 * 8 + 14 * 33 * 4 + 4);
  CHECK(std::string(kDecisionName) == "index_to_evict");
  // LLVM's own advisor logs exactly this list (a compile with a steer checks
  // the header it sends and reports any difference as a problem).
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  CompilerDriver driver({});
  auto steer = std::make_shared<DefaultSteer>();
  const Compiled compiled = compileWith(driver, corpus.modules.front(), steer);
  REQUIRE(compiled.result.ok());
  CHECK(compiled.problems.empty());
  REQUIRE(steer->decisions > 0);
  CHECK(steer->featureBytes == decisionSpec().decisionBytes());
}

TEST_CASE("regalloc seam: answering the default's position gives LLVM's default code byte for byte",
          "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
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
  CHECK(steered.decisions == static_cast<uint64_t>(steer->decisions));
  CHECK(steered.decisions > 10);
  CHECK(steered.changed == 0);
  CHECK(steer->maskedDefault == 0);
  // The score is LLVM's, summed over the functions: the same code scores the same.
  CHECK(scored.score > 0);
  CHECK(steered.score == scored.score);

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

TEST_CASE("regalloc seam: other choices change the code, which still runs correctly", "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  const CorpusModule &module = corpus.modules.front();
  CompilerDriver driver({});
  const Compiled byDefault = compileWith(driver, module, nullptr);
  const Compiled other = compileWith(driver, module, std::make_shared<OtherRegisterSteer>());
  REQUIRE(other.result.ok());
  CHECK(other.problems.empty());
  CHECK(other.changed > 0);
  CHECK(other.object != byDefault.object);
  CHECK(other.score != byDefault.score);
  CHECK(runLinked(scratch.path(), "other", other.object) == runLinked(scratch.path(), "default", byDefault.object));
}

TEST_CASE("regalloc seam: an answer outside the mask is refused and the default taken", "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "regalloc/pressure.c", "-O2");
  CompilerDriver driver({});
  const Compiled stock = compileWith(driver, corpus.modules.front(), nullptr, false);
  const Compiled refused = compileWith(driver, corpus.modules.front(), std::make_shared<OutOfMaskSteer>());
  REQUIRE(refused.result.ok());
  CHECK(refused.object == stock.object);
  REQUIRE(!refused.problems.empty());
  CHECK_THAT(refused.problems.front(), Catch::Contains("position 99") && Catch::Contains("mask"));
}

TEST_CASE("regalloc seam: concurrent compiles each get their own channel, and results do not depend on --threads",
          "[regalloc]") {
  test::ScratchDirectory scratch;
  const Corpus project = test::extractTestCorpus(scratch / "project");
  auto run = [&](unsigned threads) {
    CompilerDriver driver(test::driverThreads(threads));
    std::vector<std::shared_ptr<ObjectCapture>> captures;
    std::vector<std::shared_ptr<EvictionHook>> hooks;
    std::vector<CompileRequest> requests;
    for (const CorpusModule &module : project.modules) {
      captures.push_back(std::make_shared<ObjectCapture>());
      hooks.push_back(std::make_shared<EvictionHook>(std::make_shared<OtherRegisterSteer>()));
      requests.push_back({&module, "", {captures.back(), hooks.back()}});
    }
    driver.compileAll(requests);
    std::vector<std::string> outcome;
    for (size_t i = 0; i < requests.size(); ++i)
      outcome.push_back(captures[i]->bytes + "|" + std::to_string(hooks[i]->score()) + "|" +
                        std::to_string(hooks[i]->decisionsTaken()) + "|" + std::to_string(hooks[i]->problems().size()));
    return outcome;
  };
  const auto one = run(1);
  CHECK(run(2) == one);
}
