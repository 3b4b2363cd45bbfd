#include <catch2/catch.hpp>

#include <llvm/Config/llvm-config.h>

#include "mlgo/autotune/pass_pool.h"
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
