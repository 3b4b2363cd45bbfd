#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>

#include "mlgo/autotune/autotuner.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

TEST_CASE("autotune: never worse than -Oz, within budget, same at any thread count, applied by eval",
          "[autotune]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  AutotuneOptions options;
  options.budget = 40;
  options.search.seed = 1;
  options.broadcastLists = 3;

  const AutotuneReport report = autotuneCorpus(corpus, CompilerDriver(test::driverThreads(2)), space, options, nullptr);
  REQUIRE(report.modules.size() == corpus.modules.size());
  size_t improved = 0;
  for (const ModuleTuning &tuning : report.modules) {
    INFO(tuning.name);
    REQUIRE(tuning.ok);
    CHECK(tuning.compilations <= options.budget);
    CHECK(tuning.bestSizes.textPlusData() <= tuning.ozSizes.textPlusData());
    if (tuning.best.empty()) CHECK(tuning.bestSizes.text == tuning.ozSizes.text);
    improved += tuning.bestSizes.textPlusData() < tuning.ozSizes.textPlusData();
  }
  CHECK(improved == report.improved);
  CHECK(improved > 0);  // the test corpus has modules -Oz does not size best
  CHECK(report.geomeanChange < 0);

  const nlohmann::json json = autotuneReportToJson(report, space, options);
  const AutotuneReport single = autotuneCorpus(corpus, CompilerDriver(test::driverThreads(1)), space, options, nullptr);
  CHECK(autotuneReportToJson(single, space, options) == json);
  CHECK(json["summary"]["improved"] == report.improved);
  CHECK(json["modules"][0]["oz"]["text+data"].get<uint64_t>() == report.modules[0].ozSizes.textPlusData());

  // eval --pass-lists compiles each module with its list: the sizes found.
  writeFileAtomically(scratch / "best.json", json.dump());
  EvalOptions evalOptions;
  evalOptions.modulePipelines = readPassLists(scratch / "best.json", space);
  CHECK(evalOptions.modulePipelines.size() == improved);
  const EvalReport eval = evaluateCorpus(corpus, CompilerDriver(test::driverThreads(2)), evalOptions);
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    INFO(corpus.modules[i].name);
    CHECK(eval.modules[i].candidate.sizes.textPlusData() == report.modules[i].bestSizes.textPlusData());
  }
}

namespace {

/// What the gate tests search with: a small seeded hybrid search.
AutotuneOptions gateTestOptions() {
  AutotuneOptions options;
  options.budget = 40;
  options.search.seed = 1;
  options.search.strategy = Strategy::Hybrid;
  return options;
}

/// A gate that rejects a fixed set of pipelines and passes the rest (the real
/// gate runs programs; here the point is what the autotuner does with a
/// verdict).

class RejectingGate final : public PassListGate {
 public:
  explicit RejectingGate(std::set<std::string> rejected) : rejected_(std::move(rejected)) {}
  GateVerdict check(const std::string &pipeline) override {
    checked.push_back(pipeline);
    if (rejected_.count(pipeline)) return {false, "rejected by the test", ""};
    return {true, "", ""};
  }
  // Its verdicts name no program, so no culprit is ever isolated.
  bool breaks(const std::string &, const std::string &, bool) override { return false; }
  std::vector<std::string> checked;

 private:
  std::set<std::string> rejected_;
};

}  // namespace

TEST_CASE("autotune: a module whose best list the gate rejects keeps its best runner-up that passes",
          "[autotune][gate]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  AutotuneOptions options = gateTestOptions();
  const CompilerDriver driver(test::driverThreads(2));
  RejectingGate passAll({});
  const AutotuneReport open = autotuneCorpus(corpus, driver, space, options, &passAll);
  std::set<std::string> winners;
  for (const ModuleTuning &tuning : open.modules)
    if (!tuning.best.empty()) winners.insert(space.pipeline(tuning.best));
  REQUIRE_FALSE(winners.empty());

  RejectingGate rejectWinners(winners);
  const AutotuneReport gated = autotuneCorpus(corpus, driver, space, options, &rejectWinners);
  options.gateFallbacks = 0;
  RejectingGate rejectWinnersNoFallback(winners);
  const AutotuneReport strict = autotuneCorpus(corpus, driver, space, options, &rejectWinnersNoFallback);
  size_t fellBack = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const ModuleTuning &before = open.modules[i], &after = gated.modules[i];
    INFO(after.name);
    CHECK(after.bestSizes.textPlusData() <= after.ozSizes.textPlusData());
    if (before.best.empty()) continue;
    // Without fallbacks a rejected winner means -Oz.
    CHECK(strict.modules[i].best.empty());
    CHECK(strict.modules[i].gatePassed == std::optional<bool>(false));
    if (after.gateFallback) {
      ++fellBack;
      CHECK(winners.count(space.pipeline(after.best)) == 0);
      CHECK(after.gatePassed == std::optional<bool>(true));
      // Smaller than -Oz, not smaller than the rejected best.
      CHECK(after.bestSizes.textPlusData() < after.ozSizes.textPlusData());
      CHECK(after.bestSizes.textPlusData() >= before.bestSizes.textPlusData());
    } else {
      CHECK(after.best.empty());
    }
  }
  CHECK(fellBack > 0);
  CHECK(gated.listsGated > winners.size());  // the runners-up were gated too
  CHECK(rejectWinnersNoFallback.checked.size() == winners.size());
  const nlohmann::json json = autotuneReportToJson(gated, space, options);
  CHECK(json["strategy"] == "hybrid");
  bool reported = false;
  for (const auto &module : json["modules"])
    reported = reported || module.value("gate", "").rfind("passed (a runner-up", 0) == 0;
  CHECK(reported);
}

namespace {

/// A gate whose program "victim" breaks under any pipeline that runs
/// `element` (as a miscompiling pass would), and only then.
class PassBreakingGate final : public PassListGate {
 public:
  explicit PassBreakingGate(std::string element) : element_(std::move(element)) {}
  GateVerdict check(const std::string &pipeline) override {
    checked.push_back(pipeline);
    if (runs(pipeline)) return {false, "victim: wrong answer", "victim"};
    return {true, "", ""};
  }
  bool breaks(const std::string &pipeline, const std::string &program, bool) override {
    ++singleRuns;  // asked from several threads at once
    return program == "victim" && runs(pipeline);
  }
  bool runs(const std::string &pipeline) const { return pipeline.find(element_) != std::string::npos; }
  std::vector<std::string> checked;
  std::atomic<size_t> singleRuns{0};

 private:
  std::string element_;
};

}  // namespace

TEST_CASE("autotune: a rejected list's culprit is isolated and runners-up that break a failed program are screened out",
          "[autotune][gate][culprit]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  AutotuneOptions options = gateTestOptions();
  options.gateFallbacks = 5;
  const CompilerDriver driver(test::driverThreads(2));
  const AutotuneReport open = autotuneCorpus(corpus, driver, space, options, nullptr);
  // The pass that the most winners run is the one that "miscompiles".
  std::map<std::string, size_t> runs;
  for (const ModuleTuning &tuning : open.modules)
    for (int pass : std::set<int>(tuning.best.begin(), tuning.best.end())) ++runs[space.passes()[pass].element];
  REQUIRE_FALSE(runs.empty());
  const std::string culprit =
      std::max_element(runs.begin(), runs.end(), [](const auto &a, const auto &b) { return a.second < b.second; })
          ->first;
  INFO("culprit " << culprit);
  PassBreakingGate gate(culprit);
  REQUIRE(gate.runs(space.pipeline({space.find(culprit)})));
  const AutotuneReport gated = autotuneCorpus(corpus, driver, space, options, &gate);

  // Every rejection was narrowed down to the one pass, from the list it broke.
  REQUIRE(gated.listsRejected > 0);
  REQUIRE(gated.culprits.size() == gated.listsRejected);
  for (const Culprit &found : gated.culprits) {
    CHECK(found.passes == std::vector<int>{space.find(culprit)});
    CHECK(found.program == "victim");
    CHECK(std::count(found.rejectedList.begin(), found.rejectedList.end(), space.find(culprit)) > 0);
  }
  // Two threads answer single-program runs ahead; what is counted is what one thread asks, one by one.
  CHECK(gated.culpritChecks + gated.prescreenRuns <= gate.singleRuns);
  PassBreakingGate oneByOne(culprit);
  const AutotuneReport alone =
      autotuneCorpus(corpus, CompilerDriver(test::driverThreads(1)), space, options, &oneByOne);
  CHECK(alone.culpritChecks + alone.prescreenRuns == oneByOne.singleRuns);
  CHECK(alone.culpritChecks == gated.culpritChecks);
  CHECK(alone.prescreenRuns == gated.prescreenRuns);
  CHECK(autotuneReportToJson(alone, space, options) == autotuneReportToJson(gated, space, options));
  CHECK(gated.fallbacksScreenedOut <= gated.prescreenRuns);
  CHECK(gated.fallbacksScreenedOut > 0);  // the test corpus has runners-up with the culprit
  // Once "victim" has failed, a runner-up that breaks it costs one run of
  // it, not a gate check: the only lists with the culprit that went through
  // the whole gate are the modules' winners.
  std::set<std::string> winners;
  for (const ModuleTuning &tuning : open.modules)
    if (!tuning.best.empty()) winners.insert(space.pipeline(tuning.best));
  for (const std::string &pipeline : gate.checked)
    if (gate.runs(pipeline)) CHECK(winners.count(pipeline) == 1);
  for (size_t i = 0; i < gated.modules.size(); ++i) {
    const ModuleTuning &before = open.modules[i], &after = gated.modules[i];
    INFO(after.name);
    CHECK_FALSE(gate.runs(space.pipeline(after.best)));
    CHECK(after.bestSizes.textPlusData() <= after.ozSizes.textPlusData());
    if (!gate.runs(space.pipeline(before.best))) CHECK(after.best == before.best);  // untouched
  }
  const nlohmann::json summary = autotuneReportToJson(gated, space, options)["summary"];
  CHECK(summary["culprits"].size() == gated.culprits.size());
  CHECK(summary["culprits"][0]["pipeline"] == space.pipeline({space.find(culprit)}));
  CHECK(summary["culprits"][0]["program"] == "victim");
  CHECK(summary["fallbacks_screened_out"] == gated.fallbacksScreenedOut);
  CHECK(summary["prescreen_runs"] == gated.prescreenRuns);
}

TEST_CASE("autotune: best.json that is not one is refused naming the entry", "[autotune][errors]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "a.json", R"({"format":"other"})");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  CHECK_THROWS_WITH(readPassLists(scratch / "a.json", space), Catch::Contains("neither a best.json of mlgo autotune"));
  writeFileAtomically(scratch / "b.json", R"({"format":"mlgo-autotune","modules":[{"name":"x.o","pipeline":3}]})");
  CHECK_THROWS_WITH(readPassLists(scratch / "b.json", space), Catch::Contains("modules[0].pipeline"));
  // Lists are data: passes outside the search space (dot-cfg writes files,
  // view-cfg starts a viewer), and a pipeline that is not its passes', are
  // refused; what runs is rendered by mlgo from the passes.
  writeFileAtomically(scratch / "c.json", R"json({"format":"mlgo-autotune","modules":[
      {"name":"x.o","passes":["dot-cfg"],"pipeline":"function(dot-cfg)"}]})json");
  CHECK_THROWS_WITH(readPassLists(scratch / "c.json", space),
                    Catch::Contains("c.json: modules[0]") && Catch::Contains("'dot-cfg' is not a pass"));
  writeFileAtomically(scratch / "d.json", R"json({"format":"mlgo-autotune","modules":[
      {"name":"x.o","passes":["mergefunc"],"pipeline":"module(mergefunc),function(view-cfg)"}]})json");
  CHECK_THROWS_WITH(readPassLists(scratch / "d.json", space), Catch::Contains("is not the pipeline of its passes"));
  writeFileAtomically(scratch / "e.json", R"json({"format":"mlgo-autotune","modules":[
      {"name":"x.o","pipeline":"function(view-cfg)"}]})json");
  CHECK_THROWS_WITH(readPassLists(scratch / "e.json", space), Catch::Contains("modules[0].passes"));
}

TEST_CASE("autotune: a module with nothing under the metric counts as unchanged in best.json", "[autotune]") {
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  AutotuneReport report;
  ModuleTuning empty;  // e.g. a file whose code is all #ifdef'd out for this target
  empty.name = "empty.o";
  empty.ok = true;
  ModuleTuning smaller;
  smaller.name = "smaller.o";
  smaller.ok = true;
  smaller.ozSizes.text = 200;
  smaller.bestSizes.text = 150;
  smaller.best = {space.find("default<Oz>")};
  report.modules = {empty, smaller};
  AutotuneOptions options;
  options.metric = SizeMetric::Text;
  const nlohmann::json json = autotuneReportToJson(report, space, options);
  CHECK(json["modules"][0]["change"] == 0.0);
  CHECK(json["modules"][1]["change"] == Approx(150.0 / 200.0 - 1));
}

namespace {

/// A gate under which every list breaks only a C++ program's link.
class CxxLinkGate final : public PassListGate {
 public:
  GateVerdict check(const std::string &) override {
    return {false, "cxx_program: linking exited with status 1", "cxx_program", true};
  }
  bool breaks(const std::string &, const std::string &, bool linkFailuresCount) override { return linkFailuresCount; }
};

}  // namespace

TEST_CASE("autotune: a list that only fails to link C++ programs stays with C modules, not with C++ ones",
          "[autotune][gate]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const AutotuneOptions options = gateTestOptions();
  const CompilerDriver driver(test::driverThreads(2));
  const AutotuneReport open = autotuneCorpus(corpus, driver, space, options, nullptr);
  CxxLinkGate gate;
  const AutotuneReport gated = autotuneCorpus(corpus, driver, space, options, &gate);
  size_t cKept = 0, cxxWithList = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    INFO(corpus.modules[i].name);
    if (open.modules[i].best.empty()) continue;
    if (isCxxModule(corpus.modules[i])) {
      CHECK(gated.modules[i].best.empty());  // every runner-up fails the same way: -Oz
      cxxWithList += 1;
    } else {
      CHECK(gated.modules[i].best == open.modules[i].best);
      CHECK(gated.modules[i].gatePassed == std::optional<bool>(true));
      ++cKept;
    }
  }
  REQUIRE(cKept > 0);
  CHECK(gated.cModulesKeepingCxxLinkFailures == cKept);
  CHECK(gated.listsFailingOnlyCxxLinks == gated.listsRejected);
  const nlohmann::json json = autotuneReportToJson(gated, space, options);
  CHECK(json["summary"]["lists_rejected_miscompile"] == 0);
  bool reported = false;
  for (const auto &module : json["modules"])
    reported = reported || module.value("gate", "").rfind("passed for C (only C++ programs fail, to link", 0) == 0;
  CHECK(reported);
  INFO("C++ modules with a list before the gate: " << cxxWithList);
}
