#include <catch2/catch.hpp>

#include "mlgo/trace/trace_reader.h"
#include "mlgo/trace/trace_stats.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::trace;

TEST_CASE("trace stats: yes/no decisions count the actions taken and the default's, in JSON and in text",
          "[trace]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  test::traceCorpus(corpus, scratch / "trace");
  const TraceReader reader(scratch / "trace");
  uint64_t yes = 0, defaultYes = 0, decisions = 0;
  reader.forEachModule([&](const ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      yes += module.actions[d] == 1;
      defaultYes += module.defaultDecisions[d] == 1;
    }
  });
  REQUIRE(decisions > 0);
  REQUIRE(yes > 0);
  const TraceStats stats = computeTraceStats(reader);
  CHECK(stats.yes == yes);
  CHECK(stats.defaultYes == defaultYes);
  const nlohmann::json summary = traceStatsToJson(reader, stats);
  CHECK(summary["yes"] == yes);
  CHECK(summary["default_yes"] == defaultYes);
  CHECK_THAT(traceStatsToText(reader, stats),
             Catch::Contains(std::to_string(yes) + " yes, the default " + std::to_string(defaultYes)));
}
