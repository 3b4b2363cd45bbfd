#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "mlgo/autotune/coreset.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

/// mlgo's search space: coreset files hold only its passes.
const SearchSpace &searchSpace() {
  static const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  return space;
}

/// The pipeline of the search space's pass `index`: list `index` of tableOf.
std::string listPipeline(int index) { return searchSpace().pipeline({index}); }

/// A sweep of `sizes` (modules x lists, sizes of .text; -Oz = 100 each) with
/// every list passing the gate.
SweepTable tableOf(const std::vector<std::vector<uint64_t>> &sizes, const std::vector<bool> &cxx = {}) {
  SweepTable table;
  for (size_t l = 0; l < sizes.front().size(); ++l)
    table.lists.push_back({{searchSpace().passes().at(l).element}, listPipeline(int(l)),
                           GateVerdict{true, "", "", false}});
  for (size_t m = 0; m < sizes.size(); ++m) {
    SweptModule module;
    module.name = "m" + std::to_string(m);
    module.cxx = m < cxx.size() && cxx[m];
    module.oz.sizes.text = 100;
    for (uint64_t size : sizes[m]) {
      ListOutcome outcome;
      outcome.sizes.text = size;
      module.lists.push_back(size ? std::optional<ListOutcome>(outcome) : std::nullopt);  // 0: failed compile
    }
    table.modules.push_back(module);
  }
  return table;
}

}  // namespace

TEST_CASE("coreset: greedy selection covers the most gain first and stops when nothing adds", "[autotune][coreset]") {
  // List 0 gains a little everywhere; 1 and 2 gain a lot on half each; 3 never gains.
  const std::vector<std::vector<double>> gains{
      {0.02, 0.10, 0.00, -0.5},
      {0.02, 0.10, 0.00, -0.5},
      {0.02, 0.00, 0.10, kNever},
      {0.02, 0.00, 0.10, -0.1},
  };
  CHECK(selectCoreset(gains, 1) == std::vector<size_t>{1});  // 0.20 beats 0.08; ties go to the lower index
  CHECK(selectCoreset(gains, 2) == std::vector<size_t>{1, 2});
  // Once 1 and 2 are in, list 0 adds nothing (every module has more already): the set stops at 2.
  CHECK(selectCoreset(gains, 10) == std::vector<size_t>{1, 2});
  // A near-copy of the first list adds nothing; a smaller gain on other modules does.
  const std::vector<std::vector<double>> overlapping{{0.10, 0.09, 0.0}, {0.10, 0.09, 0.0}, {0.0, 0.0, 0.05}};
  CHECK(selectCoreset(overlapping, 2) == std::vector<size_t>{0, 2});
  CHECK(selectCoreset({}, 3).empty());
}

TEST_CASE("coreset: --fill goes on after the greedy choice with the lists by their summed gain",
          "[autotune][coreset]") {
  // Greedy takes 1 and 2 and stops; then 4 (0.12 in all), 0 (0.08), never 3
  // (it gains nowhere) nor 5 (unusable everywhere).
  const std::vector<std::vector<double>> gains{
      {0.02, 0.10, 0.00, -0.5, 0.06, kNever},
      {0.02, 0.10, 0.00, -0.5, 0.06, kNever},
      {0.02, 0.00, 0.10, kNever, 0.00, kNever},
      {0.02, 0.00, 0.10, -0.1, 0.00, kNever},
  };
  CHECK(fillByTotalGain(gains, selectCoreset(gains, 10), 10) == std::vector<size_t>{1, 2, 4, 0});
  CHECK(fillByTotalGain(gains, selectCoreset(gains, 3), 3) == std::vector<size_t>{1, 2, 4});
  CHECK(fillByTotalGain(gains, selectCoreset(gains, 1), 1) == std::vector<size_t>{1});
  // Ties in summed gain go to the lower index.
  CHECK(fillByTotalGain({{0.1, 0.05, 0.05}}, {0}, 3) == std::vector<size_t>{0, 1, 2});

  // From a sweep: the filled lists add nothing, so the oracle figures are the greedy choice's.
  const SweepTable table = tableOf({{90, 95, 100}, {90, 99, 100}});
  const Coreset greedy = buildCoreset(table, SizeMetric::Text, 3, false);
  const Coreset filled = buildCoreset(table, SizeMetric::Text, 3, false, true);
  REQUIRE(greedy.lists.size() == 1);
  REQUIRE(filled.lists.size() == 2);  // list 2 never gains
  CHECK(filled.lists[1].pipeline == listPipeline(1));
  CHECK(filled.lists[1].addedGain == 0);
  CHECK(filled.lists[1].modulesBest == 0);
  CHECK(filled.oracleGeomeanChange == greedy.oracleGeomeanChange);
  CHECK(filled.poolGeomeanChange == greedy.poolGeomeanChange);
}

TEST_CASE("coreset: built from a sweep, gate verdicts and failed compiles respected, file round trip",
          "[autotune][coreset]") {
  // Module 2 is C++; list 1 fails to link C++ programs, list 2 miscompiles.
  SweepTable table = tableOf({{90, 95, 50}, {90, 0, 50}, {99, 80, 50}}, {false, false, true});
  table.lists[1].gate = GateVerdict{false, "ast_interpreter: linking exited with status 1", "ast_interpreter", true};
  table.lists[2].gate = GateVerdict{false, "bigint: the program exited with status 1", "bigint", false};
  CHECK(table.usable(0, 1));
  CHECK_FALSE(table.usable(1, 1));  // its compile failed
  CHECK_FALSE(table.usable(2, 1));  // C++ module, C++ link failure
  CHECK_FALSE(table.usable(0, 2));  // a miscompile rejects it everywhere

  const Coreset coreset = buildCoreset(table, SizeMetric::Text, 5, false);
  REQUIRE(coreset.lists.size() == 1);  // list 0 covers all three; list 1 adds nothing over it
  CHECK(coreset.lists[0].pipeline == listPipeline(0));
  CHECK(coreset.lists[0].modulesBest == 3);
  CHECK(coreset.lists[0].addedGain == Approx(2 * std::log(100.0 / 90) + std::log(100.0 / 99)));
  CHECK(coreset.oracleGeomeanChange == Approx(std::exp(-coreset.lists[0].addedGain / 3) - 1));
  CHECK(coreset.poolGeomeanChange <= coreset.oracleGeomeanChange);

  // With module 0 preferring list 1 strongly, list 1 enters, marked C-only.
  SweepTable second = tableOf({{90, 60, 100}, {99, 0, 100}, {95, 80, 100}}, {false, false, true});
  second.lists[1].gate = table.lists[1].gate;
  const Coreset withCOnly = buildCoreset(second, SizeMetric::Text, 5, false);
  REQUIRE(withCOnly.lists.size() == 2);
  CHECK(withCOnly.lists[0].pipeline == listPipeline(1));
  CHECK(withCOnly.lists[0].cOnly);
  CHECK_FALSE(withCOnly.lists[0].usableFor(true));
  CHECK(withCOnly.lists[1].pipeline == listPipeline(0));

  test::ScratchDirectory scratch;
  withCOnly.write(scratch / "coreset.json");
  const Coreset read = Coreset::read(scratch / "coreset.json", searchSpace());
  CHECK(read.toJson() == withCOnly.toJson());
  const std::vector<std::vector<double>> gains = coresetGains(second, read, false);
  CHECK(gains[2][0] == kNever);  // the C-only list on the C++ module
  CHECK(gains[0][0] == Approx(std::log(100.0 / 60)));
  CHECK(bestOfFirst(gains[0], {1, 0}, 1) == Approx(std::log(100.0 / 90)));
  CHECK(bestOfFirst(gains[0], {1, 0}, 2) == Approx(std::log(100.0 / 60)));
  CHECK(bestOfFirst({-0.2, -0.1}, {0, 1}, 2) == 0);  // -Oz is the backup
}

TEST_CASE("coreset: bad files are named with what is wrong", "[autotune][coreset][errors]") {
  test::ScratchDirectory scratch;
  const SweepTable table = tableOf({{90}});
  nlohmann::json document = buildCoreset(table, SizeMetric::Text, 1, false).toJson();
  document["version"] = 2;
  writeFileAtomically(scratch / "v2.json", document.dump());
  CHECK_THROWS_WITH(Coreset::read(scratch / "v2.json", searchSpace()),
                    Catch::Contains("v2.json: version: a coreset of version 2; this mlgo reads version 1"));
  document["version"] = 1;
  document["lists"][0]["languages"] = {"fortran"};
  writeFileAtomically(scratch / "lang.json", document.dump());
  CHECK_THROWS_WITH(Coreset::read(scratch / "lang.json", searchSpace()), Catch::Contains("lists[0].languages"));
  writeFileAtomically(scratch / "other.json", R"({"format": "mlgo-autotune"})");
  CHECK_THROWS_AS(Coreset::read(scratch / "other.json", searchSpace()), InputError);
  // Names the search space does not know, or a pipeline other than its
  // passes' (a list is data: mlgo renders what runs), are refused by name.
  document = buildCoreset(table, SizeMetric::Text, 1, false).toJson();
  document["lists"][0]["passes"] = {"no-such-pass"};
  writeFileAtomically(scratch / "unknown.json", document.dump());
  CHECK_THROWS_WITH(Coreset::read(scratch / "unknown.json", searchSpace()),
                    Catch::Contains("unknown.json: lists[0]") && Catch::Contains("'no-such-pass' is not a pass"));
  // A list using an element the space excludes (view-cfg writes files) is
  // left out, never run; with nothing else, nothing is left.
  document["lists"][0]["passes"] = {"view-cfg"};
  writeFileAtomically(scratch / "excluded.json", document.dump());
  CHECK_THROWS_WITH(Coreset::read(scratch / "excluded.json", searchSpace()),
                    Catch::Contains("excluded.json: lists") && Catch::Contains("holds no list the search space allows"));
  document = buildCoreset(table, SizeMetric::Text, 1, false).toJson();
  document["lists"][0]["pipeline"] = "module(load=/tmp/x.so)";
  writeFileAtomically(scratch / "pipeline.json", document.dump());
  CHECK_THROWS_WITH(Coreset::read(scratch / "pipeline.json", searchSpace()),
                    Catch::Contains("lists[0].pipeline") && Catch::Contains("is not the pipeline of its passes"));
  // A sweep that lacks a coreset list cannot train for it.
  Coreset coreset = buildCoreset(table, SizeMetric::Text, 1, false);
  coreset.lists[0].pipeline = "function(elsewhere)";
  CHECK_THROWS_WITH(coresetGains(table, coreset, false), Catch::Contains("function(elsewhere)"));
  CHECK_THROWS_AS(buildCoreset(table, SizeMetric::Text, 0, false), UsageError);
}
