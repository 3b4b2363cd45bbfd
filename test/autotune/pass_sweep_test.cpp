#include <catch2/catch.hpp>

#include <atomic>

#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;
namespace fs = std::filesystem;

namespace {

std::vector<PoolList> smallPool(const SearchSpace &space, const test::ScratchDirectory &scratch) {
  writeFileAtomically(scratch / "pool.txt",
                      "# three lists\ndefault<Oz> mergefunc\n\nmem2reg   # alone: no inlining\ndefault<O1>\n"
                      "default<Oz> mergefunc\n");
  return readPassListPool(scratch / "pool.txt", space);
}

SweepTable sweep(const Corpus &corpus, unsigned threads, const std::vector<PoolList> &lists, const fs::path &output,
                 bool resume = false, CandidateCompile compile = {}) {
  SweepOptions options;
  options.lists = lists;
  options.output = output;
  options.resume = resume;
  options.compile = std::move(compile);
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  sweepPassLists(corpus, CompilerDriver(test::driverThreads(threads)), options, *single);
  return SweepTable::read(output);
}

}  // namespace

TEST_CASE("pass pool: text, best.json and errors naming the line", "[autotune][sweep]") {
  test::ScratchDirectory scratch;
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const std::vector<PoolList> lists = smallPool(space, scratch);
  REQUIRE(lists.size() == 3);  // the repeated list once
  CHECK(lists[0].pipeline == "default<Oz>,mergefunc");
  CHECK(lists[1].passes == std::vector<std::string>{"mem2reg"});
  CHECK(lists[1].pipeline == "function(mem2reg)");
  writeFileAtomically(scratch / "bad.txt", "default<Oz>\n\nno-such-pass default<Oz>\n");
  CHECK_THROWS_WITH(readPassListPool(scratch / "bad.txt", space),
                    Catch::Contains("bad.txt: line 3: 'no-such-pass' is not a pass"));
  writeFileAtomically(scratch / "empty.txt", "# nothing\n");
  CHECK_THROWS_WITH(readPassListPool(scratch / "empty.txt", space), Catch::Contains("holds no pass list"));
  writeFileAtomically(scratch / "best.json", R"({"format": "mlgo-autotune", "modules": [
      {"name": "a.o", "passes": ["default<O1>"]}, {"name": "b.o", "passes": []},
      {"name": "c.o", "passes": ["sroa", 3]}]})");
  CHECK_THROWS_WITH(readPassListPool(scratch / "best.json", space), Catch::Contains("modules[2].passes"));

  // Several files: in order, each list once; an empty one is named.
  writeFileAtomically(scratch / "more.txt", "default<O1>\ndefault<Os>\n");
  const std::vector<PoolList> both = readPassListPools({scratch / "pool.txt", scratch / "more.txt"}, space);
  REQUIRE(both.size() == 4);
  CHECK(both[2].pipeline == lists[2].pipeline);
  CHECK(both[3].pipeline == "default<Os>");
  CHECK_THROWS_WITH(readPassListPools({scratch / "pool.txt", scratch / "empty.txt"}, space),
                    Catch::Contains("empty.txt: holds no pass list"));
}

TEST_CASE("pass sweep: every module under every list, as the driver compiles it, same at any thread count",
          "[autotune][sweep]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const std::vector<PoolList> lists = smallPool(space, scratch);
  const SweepTable table = sweep(corpus, 2, lists, scratch / "two");
  CHECK(table.featureNames == moduleFeatureNames());
  CHECK(table.modules.size() + table.failedModules.size() == corpus.modules.size());
  REQUIRE(table.modules.size() >= 5);
  const CompilerDriver driver(test::driverThreads(1));
  for (const SweptModule &module : table.modules) {
    INFO(module.name);
    const CorpusModule &corpusModule = test::moduleNamed(corpus, module.name);
    CHECK(module.cxx == isCxxModule(corpusModule));
    CHECK(module.features == moduleFeatures(corpusModule));
    const CompileResult oz = driver.compile({&corpusModule, "", {}});
    CHECK(module.oz.sizes.textPlusData() == oz.sizes.textPlusData());
    CHECK(module.oz.irInstructions == oz.irInstructions);
    REQUIRE(module.lists.size() == lists.size());
    for (size_t l = 0; l < lists.size(); ++l) {
      const CompileResult compiled = driver.compile({&corpusModule, lists[l].pipeline, {}});
      REQUIRE(module.lists[l].has_value() == compiled.ok());
      CHECK(module.lists[l]->sizes.text == compiled.sizes.text);
      CHECK(module.lists[l]->irInstructions == compiled.irInstructions);
      CHECK_FALSE(table.usable(0, l));  // not gated
      CHECK(table.usable(0, l, true));
    }
  }
  const SweepTable one = sweep(corpus, 1, lists, scratch / "one");
  CHECK(readFile(scratch / "one" / SweepTable::kFile) == readFile(scratch / "two" / SweepTable::kFile));
  CHECK(!fs::exists(scratch / "one" / ".sweep-journal"));  // a finished sweep leaves no journal
}

TEST_CASE("pass sweep: an interrupted sweep resumes with what it finished and ends as an uninterrupted one",
          "[autotune][sweep]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const std::vector<PoolList> lists = smallPool(space, scratch);
  REQUIRE(sweep(corpus, 1, lists, scratch / "whole").failedModules.empty());

  // The run dies at its 10th compile (one thread: the first two modules are done).
  const CompilerDriver driver(test::driverThreads(1));
  std::atomic<size_t> compiles{0};
  auto dying = [&](const CorpusModule &module, const std::string &pipeline) {
    if (++compiles == 10) throw std::runtime_error("killed");
    return driver.compile({&module, pipeline, {}});
  };
  CHECK_THROWS_WITH(sweep(corpus, 1, lists, scratch / "killed", false, dying), "killed");
  CHECK(!fs::exists(scratch / "killed" / SweepTable::kFile));
  // Resumed with other lists: refused.
  std::vector<PoolList> other(lists.begin(), lists.end() - 1);
  CHECK_THROWS_WITH(sweep(corpus, 1, other, scratch / "killed", true), Catch::Contains("other settings"));

  compiles = 0;
  auto counting = [&](const CorpusModule &module, const std::string &pipeline) {
    ++compiles;
    return driver.compile({&module, pipeline, {}});
  };
  sweep(corpus, 1, lists, scratch / "killed", true, counting);
  CHECK(readFile(scratch / "killed" / SweepTable::kFile) == readFile(scratch / "whole" / SweepTable::kFile));
  CHECK(compiles ==
        (corpus.modules.size() - 2) * (lists.size() + 1));  // the two finished modules were not compiled again
}

TEST_CASE("pass sweep: a damaged sweep file is named with its entry", "[autotune][sweep][errors]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  sweep(corpus, 2, smallPool(space, scratch), scratch / "sweep");
  nlohmann::json document = nlohmann::json::parse(readFile(scratch / "sweep" / SweepTable::kFile));
  document["modules"][1]["lists"][2] = {1, 2};
  writeFileAtomically(scratch / "short.json", document.dump());
  CHECK_THROWS_WITH(SweepTable::read(scratch / "short.json"), Catch::Contains("modules[1].lists[2]"));
  document["version"] = 7;
  writeFileAtomically(scratch / "v7.json", document.dump());
  CHECK_THROWS_WITH(SweepTable::read(scratch / "v7.json"), Catch::Contains("version 7"));
}
