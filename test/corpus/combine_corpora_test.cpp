#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/corpus/combine_corpora.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("combine-corpus: per-project corpora become one corpus with prefixed names", "[corpus]") {
  test::ScratchDirectory root;
  const Corpus zeta = test::extractTestCorpus(root / "zeta");
  const Corpus alpha = test::extractTestCorpus(root / "alpha");
  fs::create_directories(root / "not-a-corpus");

  const CombinedCorpus combined = combineCorpora(root.path());
  CHECK(combined.parts == std::vector<std::string>{"alpha", "zeta"});  // sorted, not in creation order
  CHECK(combined.modules == alpha.modules.size() + zeta.modules.size());

  const Corpus whole = Corpus::load(root.path());
  REQUIRE(whole.modules.size() == combined.modules);
  for (size_t i = 0; i < alpha.modules.size(); ++i) {
    const CorpusModule &module = whole.modules[i];
    CHECK(module.name == "alpha/" + alpha.modules[i].name);
    CHECK(module.loadError.empty());
    CHECK(readFile(module.bitcodePath) == readFile(alpha.modules[i].bitcodePath));
    CHECK(module.commandLine == alpha.modules[i].commandLine);
  }
  CHECK(whole.modules[alpha.modules.size()].name == "zeta/" + zeta.modules.front().name);

  // Combining again (the root's own description is not a part) gives the same.
  CHECK(combineCorpora(root.path()).modules == combined.modules);
}

TEST_CASE("combine-corpus: nothing to combine, and parts that disagree, are input errors", "[corpus][errors]") {
  test::ScratchDirectory root;
  fs::create_directories(root / "empty");
  CHECK_THROWS_WITH(combineCorpora(root.path()), Contains(root.path().string()) && Contains("no subdirectory"));

  test::extractTestCorpus(root / "a");
  test::extractTestCorpus(root / "b");
  const std::string description = readFile(root / "b" / kCorpusDescriptionFile);
  writeFileAtomically(root / "b" / kCorpusDescriptionFile,
                      description.substr(0, description.find('{') + 1) + "\"has_thinlto\": true, " +
                          description.substr(description.find("\"modules\"")));
  CHECK_THROWS_AS(combineCorpora(root.path()), InputError);
  CHECK_THROWS_WITH(combineCorpora(root.path()), Contains("b/corpus_description.json") && Contains("has_thinlto"));
  CHECK_FALSE(fs::exists(root / kCorpusDescriptionFile));  // nothing half-combined was written
}
