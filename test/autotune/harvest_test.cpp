#include <catch2/catch.hpp>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <map>
#include <set>

#include "mlgo/autotune/harvest.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;
namespace fs = std::filesystem;

namespace {

/// Candidate compiles in-process, counted.
CandidateCompile countedCompile(const CompilerDriver &driver, std::atomic<size_t> &count) {
  return [&driver, &count](const CorpusModule &module, const std::string &pipeline) {
    ++count;
    return driver.compile({&module, pipeline, {}});
  };
}

HarvestOptions smallHarvest() {
  HarvestOptions options;
  options.tuning.budget = 24;
  options.tuning.search.seed = 3;
  options.listsKept = 3;
  options.chunk = 3;
  return options;
}

/// Every pool file's text, by file name.
std::map<std::string, std::string> poolFiles(const fs::path &directory) {
  std::map<std::string, std::string> files;
  for (const auto &entry : fs::directory_iterator(directory))
    if (entry.path().extension() == ".jsonl") files[entry.path().filename().string()] = readFile(entry.path());
  return files;
}

/// The corpus as a build in another directory leaves it: every module's
/// source file name and module identifier changed, nothing else.
void moveBuild(const Corpus &corpus) {
  for (const CorpusModule &module : corpus.modules) {
    llvm::LLVMContext context;
    auto buffer = llvm::MemoryBuffer::getFile(module.bitcodePath.string());
    REQUIRE(buffer);
    auto parsed = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), context);
    REQUIRE(!!parsed);
    (*parsed)->setSourceFileName("/elsewhere/build/" + (*parsed)->getSourceFileName());
    (*parsed)->setModuleIdentifier("/elsewhere/build/" + (*parsed)->getModuleIdentifier());
    std::error_code error;
    llvm::raw_fd_ostream out(module.bitcodePath.string(), error);
    REQUIRE(!error);
    llvm::WriteBitcodeToFile(**parsed, out);
  }
}

}  // namespace

TEST_CASE("harvest: best lists with sizes and IR counts, stopped and continued, rebuilt elsewhere",
          "[autotune][harvest]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(2));
  std::atomic<size_t> compiles{0};
  HarvestOptions options = smallHarvest();
  options.tuning.compile = countedCompile(driver, compiles);

  // One run that stops after two modules, saving each as it finishes, then
  // one that finishes.
  PassPool pool = PassPool::load(scratch / "pool", space);
  options.limit = 2;
  options.chunk = 1;
  std::vector<size_t> savedWhenReported;
  options.progress = [&](size_t, size_t) {
    savedWhenReported.push_back(PassPool::load(scratch / "pool", space).entries().size());
  };
  const HarvestReport first = harvestCorpus(corpus, driver, space, options, nullptr, pool);
  CHECK(first.harvested == 2);
  CHECK(first.remaining == corpus.modules.size() - 2);
  CHECK(savedWhenReported == std::vector<size_t>{1, 2});
  options.progress = {};
  options.chunk = smallHarvest().chunk;
  options.limit = 0;
  pool = PassPool::load(scratch / "pool", space);  // what the first run saved, as a later process reads it
  const HarvestReport rest = harvestCorpus(corpus, driver, space, options, nullptr, pool);
  CHECK(rest.known == 2);
  CHECK(rest.harvested == corpus.modules.size() - 2);

  // The same pool as one uninterrupted run with other chunks and threads.
  const CompilerDriver oneThread(test::driverThreads(1));
  HarvestOptions whole = smallHarvest();
  whole.chunk = 1;
  PassPool straight = PassPool::load(scratch / "straight", space);
  harvestCorpus(corpus, oneThread, space, whole, nullptr, straight);
  const auto files = poolFiles(scratch / "pool");
  REQUIRE(!files.empty());
  CHECK(poolFiles(scratch / "straight") == files);

  // Every entry: sizes that a compile under its lists gives, smallest first.
  const PassPool saved = PassPool::load(scratch / "pool", space);
  REQUIRE(saved.entries().size() == corpus.modules.size());
  size_t withLists = 0;
  for (const CorpusModule &module : corpus.modules) {
    INFO(module.name);
    const PoolEntry *entry = saved.find(poolKeyOf(module, space), options.tuning.budget);
    REQUIRE(entry != nullptr);
    CHECK(entry->module == module.name);
    CHECK(entry->compilations <= options.tuning.budget);
    const CompileResult oz = driver.compile({&module, "", {}});
    CHECK(entry->oz.textPlusData() == oz.sizes.textPlusData());
    CHECK(entry->ozIrInstructions == oz.irInstructions);
    CHECK(entry->lists.size() <= options.listsKept);
    withLists += !entry->lists.empty();
    uint64_t previous = 0;
    for (const HarvestedList &list : entry->lists) {
      const CompileResult compiled = driver.compile({&module, list.pipeline, {}});
      CHECK(compiled.sizes.textPlusData() == list.sizes.textPlusData());
      CHECK(compiled.irInstructions == list.irInstructions);
      CHECK(list.sizes.textPlusData() < entry->oz.textPlusData());
      CHECK(list.sizes.textPlusData() >= previous);
      CHECK(list.gate == "unchecked");
      previous = list.sizes.textPlusData();
    }
  }
  CHECK(withLists > 0);

  // A second harvest, and one of the corpus rebuilt in another directory,
  // compile nothing and change no file.
  moveBuild(corpus);
  const Corpus rebuilt = Corpus::load(corpus.directory);
  compiles = 0;
  pool = PassPool::load(scratch / "pool", space);
  const HarvestReport again = harvestCorpus(rebuilt, driver, space, options, nullptr, pool);
  CHECK(again.known == corpus.modules.size());
  CHECK(again.harvested == 0);
  CHECK(compiles == 0);
  CHECK(poolFiles(scratch / "pool") == files);

  // A larger budget asks again.
  options.tuning.budget = 30;
  options.limit = 1;
  pool = PassPool::load(scratch / "pool", space);
  CHECK(harvestCorpus(rebuilt, driver, space, options, nullptr, pool).harvested == 1);
  CHECK(compiles > 0);
  CHECK(PassPool::load(scratch / "pool", space).entries().size() == corpus.modules.size());
}

TEST_CASE("harvest: lists the real gate accepts, a pool sweep-passes reads", "[autotune][harvest][gate]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(2));
  fs::create_directories(scratch / "programs");
  for (const char *program : {"avl_order_stats.c", "ast_interpreter.cpp"})
    fs::copy_file(defaultGatePrograms() / program, scratch / "programs" / program);
  GateOptions gateOptions;
  gateOptions.programs = scratch / "programs";
  gateOptions.workDirectory = scratch / "gate";
  gateOptions.clang = findClang("");
  gateOptions.threads = 2;
  CorrectnessGate gate(gateOptions);

  PassPool pool = PassPool::load(scratch / "pool", space);
  harvestCorpus(corpus, driver, space, smallHarvest(), &gate, pool);
  size_t lists = 0;
  const PassPool saved = PassPool::load(scratch / "pool", space);
  for (const PoolEntry *entry : saved.entries())
    for (const HarvestedList &list : entry->lists) {
      INFO(entry->module << ": " << list.pipeline);
      const GateVerdict verdict = gate.check(list.pipeline);
      INFO(verdict.failure);
      CHECK(verdict.acceptsFor(entry->cxx));
      CHECK(list.gate == (verdict.passed ? "passed" : "passed for C"));
      ++lists;
    }
  REQUIRE(lists > 0);

  // sweep-passes' pool: each distinct list once, those best most often first.
  const std::vector<PoolList> read = readPassListPool(scratch / "pool", space);
  const std::vector<std::vector<std::string>> distinct = pool.distinctLists(space);
  REQUIRE(read.size() == distinct.size());
  CHECK(read.front().passes == distinct.front());
  std::set<std::string> pipelines;
  for (const PoolList &list : read) CHECK(pipelines.insert(list.pipeline).second);
}

TEST_CASE("harvest: modules finished before an error are saved", "[autotune][harvest]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  REQUIRE(corpus.modules.size() >= 2);
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  const CompilerDriver driver(test::driverThreads(1));
  // One thread, largest first: the second module taken throws.
  const std::vector<size_t> order = largestModulesFirst(corpus, {0, 1});
  const std::string failing = corpus.modules[order[1]].name;
  HarvestOptions options = smallHarvest();
  options.tuning.compile = [&](const CorpusModule &module, const std::string &pipeline) {
    if (module.name == failing) throw std::runtime_error("the compile of " + failing + " broke");
    return driver.compile({&module, pipeline, {}});
  };
  options.limit = 2;
  PassPool pool = PassPool::load(scratch / "pool", space);
  CHECK_THROWS_WITH(harvestCorpus(corpus, driver, space, options, nullptr, pool),
                    Catch::Contains("the compile of " + failing + " broke"));
  const PassPool saved = PassPool::load(scratch / "pool", space);
  REQUIRE(saved.entries().size() == 1);
  CHECK(saved.entries().front()->module == corpus.modules[order[0]].name);
}
