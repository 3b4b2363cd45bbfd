#include <catch2/catch.hpp>

#include <numeric>
#include <set>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

/// The names of the functions a module's bitcode defines, read by LLVM.
std::set<std::string> definedFunctions(const fs::path &bitcode) {
  llvm::LLVMContext context;
  auto buffer = llvm::MemoryBuffer::getFile(bitcode.string());
  REQUIRE(buffer);
  auto module = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), context);
  REQUIRE(bool(module));
  std::set<std::string> names;
  for (const llvm::Function &function : **module)
    if (!function.isDeclaration()) names.insert(function.getName().str());
  return names;
}

}  // namespace

TEST_CASE("collector: module samples are distinct, sorted and depend on seed and iteration only", "[training][rl]") {
  const std::vector<size_t> sample = sampleModules(100, 10, 7, 3);
  CHECK(sample.size() == 10);
  CHECK(std::set<size_t>(sample.begin(), sample.end()).size() == 10);
  CHECK(std::is_sorted(sample.begin(), sample.end()));
  CHECK(sample.back() < 100);
  CHECK(sampleModules(100, 10, 7, 3) == sample);
  CHECK(sampleModules(100, 10, 7, 4) != sample);
  CHECK(sampleModules(100, 10, 8, 3) != sample);
  CHECK(sampleModules(5, 10, 7, 3) == std::vector<size_t>{0, 1, 2, 3, 4});
  // Every module gets picked over many iterations.
  std::set<size_t> seen;
  for (uint64_t iteration = 1; iteration <= 100; ++iteration)
    for (size_t index : sampleModules(20, 3, 1, iteration)) seen.insert(index);
  CHECK(seen.size() == 20);
}

TEST_CASE("collector: stochastic compiles record what the policy sampled, the same at any thread count",
          "[training][rl][determinism]") {
  const test::TracedTestCorpus traced;
  const Corpus &corpus = traced.corpus;
  const Problem &problem = findProblem("inlining");
  // An untrained network: close to a coin flip per decision.
  FeaturePreprocessor pre(problem.featureNames(), readVocab(traced / "vocab", problem.featureNames()), {});
  std::vector<DenseLayer> layers{{pre.outputCount(), 2, std::vector<float>(pre.outputCount() * 2, 0.01f), {0, 0}}};
  const YesNoPolicy model("inlining", pre, layers, Activation::Relu);
  const auto sampling = samplingPolicy(model);

  CollectionPlan plan;
  plan.modules = sampleModules(corpus.modules.size(), corpus.modules.size(), 5, 1);
  plan.needsDefault.assign(plan.modules.size(), false);
  plan.needsDefault[0] = true;
  plan.seed = 5;
  plan.iteration = 1;
  DriverOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const auto first = collectTrajectories(CompilerDriver(one), corpus, problem, *sampling, plan);
  const auto second = collectTrajectories(CompilerDriver(two), corpus, problem, *sampling, plan);
  REQUIRE(first.size() == corpus.modules.size());
  size_t decisions = 0, inlined = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    INFO(corpus.modules[first[i].module].name);
    REQUIRE(first[i].result.ok());
    CHECK(first[i].defaultResult.has_value() == (i == 0));
    CHECK(first[i].trajectory.actions == second[i].trajectory.actions);
    CHECK(first[i].trajectory.features == second[i].trajectory.features);
    CHECK(first[i].result.sizes.text == second[i].result.sizes.text);
    const Trajectory &t = first[i].trajectory;
    CHECK(t.features.size() == t.decisions() * problem.featureNames().size());
    for (size_t d = 0; d < t.decisions(); ++d) {
      float logits[2];
      model.logits(t.features.data() + d * t.featureCount, logits);
      CHECK(logits[0] == t.logits[2 * d]);
      CHECK(logits[1] == t.logits[2 * d + 1]);
      inlined += t.actions[d];
    }
    decisions += t.decisions();
  }
  // A near coin flip both inlines and declines.
  CHECK(decisions > 20);
  CHECK(inlined > 0);
  CHECK(inlined < decisions);

  // Another iteration samples other actions.
  plan.iteration = 2;
  const auto later = collectTrajectories(CompilerDriver(two), corpus, problem, *sampling, plan);
  bool anyDifferent = false;
  for (size_t i = 0; i < later.size(); ++i) anyDifferent |= later[i].trajectory.actions != first[i].trajectory.actions;
  CHECK(anyDifferent);
}

TEST_CASE("collector: regalloc compiles sample evictions among the allowed positions and carry their regalloc scores",
          "[training][rl][regalloc][determinism]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  const Problem &problem = findProblem("regalloc");
  const PositionPolicy scoring = test::regallocPolicyScoringBy("liverange_size");
  const auto sampling = samplingPolicy(scoring);
  CollectionPlan plan;
  plan.modules = {0, 1};
  plan.needsDefault = {true, false};
  plan.seed = 3;
  plan.iteration = 1;
  const auto first = collectTrajectories(CompilerDriver(test::driverThreads(1)), corpus, problem, *sampling, plan);
  const auto second = collectTrajectories(CompilerDriver(test::driverThreads(2)), corpus, problem, *sampling, plan);
  REQUIRE(first.size() == 2);
  const PositionLayout layout(problem.decisionSpec());
  std::vector<float> inputs(layout.positions() * layout.width());
  std::vector<uint8_t> mask(layout.positions());
  size_t differFromGreedy = 0, mostSegments = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    const CollectedModule &module = first[i];
    INFO(corpus.modules[module.module].name);
    REQUIRE(module.result.ok());
    const Trajectory &trajectory = module.trajectory;
    CHECK(trajectory.actionCount == 33);
    REQUIRE(trajectory.decisions() > 10);
    for (size_t d = 0; d < trajectory.decisions(); ++d) {
      const int64_t *words = trajectory.features.data() + d * trajectory.featureCount;
      layout.rawInputs(words, inputs.data(), mask.data());
      CHECK(mask.at(trajectory.actions[d]));
      differFromGreedy += trajectory.actions[d] != scoring.decide(words);
    }
    CHECK(module.measures.at("regalloc_score") > 0);
    // Each function's evictions are one reward segment, in decision order,
    // keyed by a function the module defines; the functions' scores add up
    // to the module's.
    const std::set<std::string> functions = definedFunctions(corpus.modules[module.module].bitcodePath);
    const std::map<std::string, double> &scores = module.segmentMeasures.at("regalloc_score");
    REQUIRE_FALSE(trajectory.segments.empty());
    CHECK(trajectory.segments.front().firstDecision == 0);
    std::set<std::string> segmentKeys;
    for (size_t s = 0; s < trajectory.segments.size(); ++s) {
      const Trajectory::Segment &segment = trajectory.segments[s];
      CHECK(functions.count(segment.key));
      CHECK(scores.count(segment.key));
      CHECK(segment.firstDecision < trajectory.decisions());
      if (s) CHECK(segment.firstDecision > trajectory.segments[s - 1].firstDecision);
      segmentKeys.insert(segment.key);
    }
    CHECK(segmentKeys.size() == trajectory.segments.size());
    mostSegments = std::max(mostSegments, segmentKeys.size());
    const double summed = std::accumulate(scores.begin(), scores.end(), 0.0,
                                          [](double total, const auto &entry) { return total + entry.second; });
    CHECK(summed == Approx(module.measures.at("regalloc_score")));
    CHECK(trajectory.segments == second[i].trajectory.segments);
    CHECK(module.segmentMeasures == second[i].segmentMeasures);
    // The same compiles, the same samples, whatever the thread count.
    CHECK(trajectory.actions == second[i].trajectory.actions);
    CHECK(trajectory.logits == second[i].trajectory.logits);
    CHECK(module.measures == second[i].measures);
    CHECK(module.result.sizes.text == second[i].result.sizes.text);
  }
  CHECK(differFromGreedy > 0);  // it samples, not only takes the best score
  CHECK(mostSegments >= 2);     // pressure.c evicts in mix and in blend
  // The default compile of the module that asked for it, measured.
  REQUIRE(first[0].defaultResult);
  CHECK(first[0].defaultMeasures.at("regalloc_score") > 0);
  const std::map<std::string, double> &defaultScores = first[0].defaultSegmentMeasures.at("regalloc_score");
  for (const Trajectory::Segment &segment : first[0].trajectory.segments) CHECK(defaultScores.count(segment.key));
  CHECK_FALSE(first[1].defaultResult);
}
