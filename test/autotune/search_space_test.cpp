#include "mlgo/autotune/search_space.h"

#include <catch2/catch.hpp>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

TEST_CASE("search space: the shipped pass list loads and every element is a valid opt pipeline", "[autotune]") {
  const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  CHECK(space.all().size() > 300);
  CHECK(space.passes().size() == 121);
  // The full Attributor miscompiled xz-utils through a tuned list: never searched.
  CHECK(space.find("attributor") < 0);
  CHECK(space.find("attributor-cgscc") < 0);
  CHECK(space.find("attributor-light") >= 0);
  for (const PassElement &pass : space.all()) CHECK_FALSE(pass.reason.empty());
  // Every searchable element, wrapped for its level, parses as opt would.
  for (const PassElement &pass : space.passes())
    CHECK_NOTHROW(CompilerDriver::validatePassPipeline(pass.pipelineText()));

  const int oz = space.find("default<Oz>");
  const int mergefunc = space.find("mergefunc");
  const int licm = space.find("licm");
  REQUIRE(oz >= 0);
  REQUIRE(mergefunc >= 0);
  REQUIRE(licm >= 0);
  CHECK(space.find("asan") == -1);  // excluded: instrumentation
  CHECK(space.pipeline({oz, mergefunc, licm}) == "default<Oz>,mergefunc,function(loop-mssa(licm))");
  CHECK(space.describe({oz, mergefunc}) == "default<Oz> mergefunc");
  CHECK_NOTHROW(CompilerDriver::validatePassPipeline(space.pipeline({oz, mergefunc, licm})));
}

TEST_CASE("search space: malformed lines are refused naming the file and line", "[autotune][errors]") {
  test::ScratchDirectory scratch;
  const auto file = scratch / "passes.txt";
  writeFileAtomically(file, "# comment\ninclude\tmodule\tmergefunc\n");
  CHECK_THROWS_WITH(SearchSpace::load(file), Catch::Contains("passes.txt: line 2: expected 4 tab-separated fields"));
  writeFileAtomically(file, "maybe\tmodule\tmergefunc\twhy\n");
  CHECK_THROWS_WITH(SearchSpace::load(file), Catch::Contains("line 1: status must be include or exclude"));
  writeFileAtomically(file, "include\tregion\tmergefunc\twhy\n");
  CHECK_THROWS_WITH(SearchSpace::load(file), Catch::Contains("unknown level \"region\""));
  writeFileAtomically(file, "exclude\tmodule\tasan\tinstrumentation\n");
  CHECK_THROWS_WITH(SearchSpace::load(file), Catch::Contains("includes no pass"));
  CHECK_THROWS_AS(SearchSpace::load(scratch / "missing.txt"), InputError);
  // A pass LLVM does not know would fail every candidate holding it.
  writeFileAtomically(file, "include\tmodule\tconstmerge\tok\ninclude\tfunction\tno-such-pass\ttypo\n");
  CHECK_THROWS_AS(SearchSpace::load(file), InputError);
  CHECK_THROWS_WITH(SearchSpace::load(file), Catch::Contains("passes.txt: line 2 \"no-such-pass\"") &&
                                                 Catch::Contains("not a pass"));
  // Left to the compiles (mlgo cc): the element loads, and a list holding it
  // fails when compiled; the file's form is still checked.
  const SearchSpace unchecked = SearchSpace::load(file, SearchSpace::PassCheck::WhenCompiled);
  CHECK(unchecked.find("no-such-pass") == 1);
  CHECK_THROWS_AS(CompilerDriver::validatePassPipeline(unchecked.pipeline({1})), UsageError);
  writeFileAtomically(scratch / "malformed.txt", "maybe\tmodule\tmergefunc\twhy\n");
  CHECK_THROWS_WITH(SearchSpace::load(scratch / "malformed.txt", SearchSpace::PassCheck::WhenCompiled),
                    Catch::Contains("malformed.txt: line 1: status must be include or exclude"));
  writeFileAtomically(file, "include\tloop\tconstmerge\tmodule pass at the loop level\n");
  CHECK_THROWS_AS(SearchSpace::load(file), InputError);
}
