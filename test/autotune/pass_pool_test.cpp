#include <catch2/catch.hpp>

#include <llvm/Config/llvm-config.h>

#include "mlgo/autotune/pass_pool.h"
#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

PoolEntry entryFor(const std::string &hash, const std::string &module, const SearchSpace &space,
                   std::vector<std::vector<std::string>> lists) {
  PoolEntry entry;
  entry.key = {hash, searchSpaceHash(space), LLVM_VERSION_STRING};
  entry.module = module;
  entry.budget = 500;
  entry.strategy = "hybrid";
  entry.oz.text = 1000;
  entry.ozIrInstructions = 300;
  uint64_t text = 900;
  for (const auto &passes : lists) {
    HarvestedList list;
    list.passes = passes;
    std::vector<int> indices;
    for (const std::string &pass : passes) indices.push_back(space.find(pass));
    list.pipeline = space.pipeline(indices);
    list.sizes.text = text--;
    list.irInstructions = 250;
    list.gate = "passed";
    entry.lists.push_back(list);
  }
  return entry;
}

}  // namespace

TEST_CASE("pass pool: entries round-trip, sorted per project file, bad files named by file and line",
          "[autotune][pool]") {
  test::ScratchDirectory scratch;
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  PassPool pool = PassPool::load(scratch / "pool", space);
  CHECK(pool.entries().empty());
  pool.add(entryFor("bb", "zlib/deflate.c", space, {{"default<Oz>", "mergefunc"}, {"default<Oz>"}}), "zlib");
  pool.add(entryFor("aa", "zlib/adler32.c", space, {{"default<Oz>"}}), "zlib");
  pool.add(entryFor("cc", "lua/lapi.c", space, {}), "lua");
  pool.save();
  CHECK(fs::exists(scratch / "pool" / "zlib.jsonl"));
  CHECK(fs::exists(scratch / "pool" / "lua.jsonl"));
  const std::string zlib = readFile(scratch / "pool" / "zlib.jsonl");
  CHECK(zlib.find("adler32.c") < zlib.find("deflate.c"));  // sorted by module name

  const PassPool loaded = PassPool::load(scratch / "pool", space);
  REQUIRE(loaded.entries().size() == 3);
  const PoolEntry *deflate = loaded.find({"bb", searchSpaceHash(space), LLVM_VERSION_STRING});
  REQUIRE(deflate != nullptr);
  CHECK(deflate->lists.size() == 2);
  CHECK(deflate->lists[0].pipeline == pool.find(deflate->key)->lists[0].pipeline);
  CHECK(loaded.find(deflate->key, 501) == nullptr);  // harvested with less than asked
  // default<Oz> is best for one module and a runner-up for another: first.
  const auto lists = loaded.distinctLists(space);
  REQUIRE(lists.size() == 2);
  CHECK(lists[0] == std::vector<std::string>{"default<Oz>"});

  auto refused = [&](const std::string &line) {
    writeFileAtomically(scratch / "bad" / "p.jsonl", zlib + line + "\n");
    return test::messageOf<InputError>([&] { PassPool::load(scratch / "bad", space); });
  };
  std::string good = zlib.substr(0, zlib.find('\n'));
  CHECK_THAT(refused("{not json"),
             Contains("p.jsonl: line 3: not valid JSON: syntax error at column 3: invalid literal") &&
                 !Contains("json.exception") && !Contains("parse error"));
  CHECK_THAT(refused(good), Contains("line 3") && Contains("a second entry"));
  std::string unknownPass = good;
  unknownPass.replace(unknownPass.find("\"passes\":[\"default<Oz>\""), 23, "\"passes\":[\"no-such-pass\"");
  unknownPass.replace(unknownPass.find("\"aa\""), 4, "\"ab\"");
  CHECK_THAT(refused(unknownPass), Contains("line 3") && Contains("no-such-pass"));
  std::string badSize = good;
  badSize.replace(badSize.find("\"aa\""), 4, "\"ac\"");
  badSize.replace(badSize.find("\"text\":1000"), 11, "\"text\":-1");
  CHECK_THAT(refused(badSize), Contains("line 3") && Contains("oz.text") && Contains("not a whole number"));
}

TEST_CASE("pass pool: lists found under another search space are tried again after the pool's own, never its sizes",
          "[autotune][pool][sweep]") {
  test::ScratchDirectory scratch;
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  PassPool pool = PassPool::load(scratch / "pool", space);
  pool.add(entryFor("aa", "zlib/adler32.c", space, {{"default<Oz>"}}), "zlib");
  // Harvested before the always-inline rule: another prologue, so another space.
  PoolEntry before = entryFor("bb", "zlib/deflate.c", space, {{"mergefunc"}, {"default<Oz>"}, {"globalopt"}});
  before.key.space = std::string(32, '0');  // another prologue: another hash
  before.lists[2].passes = {"no-such-pass"};  // not in today's space: never tried
  before.lists[2].pipeline = "no-such-pass";
  pool.add(before, "zlib");
  PoolEntry otherLlvm = entryFor("cc", "zlib/crc32.c", space, {{"globaldce"}});
  otherLlvm.key.space = before.key.space;
  otherLlvm.key.llvm = "18.1.8";
  pool.add(otherLlvm, "zlib");
  pool.save();

  const PassPool loaded = PassPool::load(scratch / "pool", space);
  CHECK(loaded.distinctLists(space) == std::vector<std::vector<std::string>>{{"default<Oz>"}});
  // default<Oz> is the pool's own already; the unknown pass and LLVM 18's list are left out.
  CHECK(loaded.listsOfOtherSpaces(space) == std::vector<std::vector<std::string>>{{"mergefunc"}});
  const std::vector<PoolList> swept = readPassListPool(scratch / "pool", space);
  REQUIRE(swept.size() == 2);
  CHECK(swept[0].passes == std::vector<std::string>{"default<Oz>"});
  CHECK(swept[1].passes == std::vector<std::string>{"mergefunc"});
  // The pool's own figures count only its entries of this space.
  const PoolSummary summary = summarizePool(loaded, space);
  CHECK(summary.entries == 1);
  CHECK(summary.others == 2);
  CHECK(summary.distinctLists == 1);
  CHECK(summary.otherSpaceLists == 1);
}
