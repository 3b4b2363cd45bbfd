#include <catch2/catch.hpp>

#include <cmath>

#include "mlgo/autotune/ranking_evaluation.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

namespace {

const SearchSpace &searchSpace() {
  static const SearchSpace space = SearchSpace::load(defaultSearchSpaceFile());
  return space;
}

/// A swept module: .text 100 and 1000 IR instructions at -Oz, then per list
/// its .text and IR instructions (text 0: the compile failed).
SweptModule sweptModule(const std::string &name, bool cxx, const std::vector<std::pair<uint64_t, uint64_t>> &lists) {
  SweptModule module;
  module.name = name;
  module.cxx = cxx;
  module.oz.sizes.text = 100;
  module.oz.irInstructions = 1000;
  for (const auto &[text, instructions] : lists) {
    ListOutcome outcome;
    outcome.sizes.text = text;
    outcome.irInstructions = instructions;
    module.lists.push_back(text ? std::optional<ListOutcome>(outcome) : std::nullopt);
  }
  return module;
}

}  // namespace

TEST_CASE("ranking evaluation: each module keeps the smallest of its first K ranked lists and -Oz",
          "[autotune][predictor]") {
  SweepTable table;
  for (int l = 0; l < 3; ++l)
    table.lists.push_back({{searchSpace().passes().at(size_t(l)).element},
                           searchSpace().pipeline({l}),
                           GateVerdict{true, "", "", false}});
  table.modules.push_back(sweptModule("a.o", false, {{90, 900}, {80, 1100}, {120, 500}}));
  table.modules.push_back(sweptModule("b.o", true, {{0, 0}, {95, 1000}, {50, 700}}));
  // The coreset in another order than the sweep's columns; list 2 is C only.
  Coreset coreset;
  coreset.metric = SizeMetric::Text;
  for (size_t column : {2, 0, 1})
    coreset.lists.push_back({table.lists[column].passes, table.lists[column].pipeline, column == 2});
  CHECK(coreset.orderFor(true) == std::vector<size_t>{1, 2});
  CHECK(coreset.orderFor(false) == std::vector<size_t>{0, 1, 2});

  // a.o ranks coreset lists 1, 2, 0 (columns 0, 1, 2); b.o, C++, 0 then 2 (its C-only list and column 1).
  const std::vector<std::vector<size_t>> rankings{{1, 2, 0}, {0, 2}};
  const std::vector<BudgetOutcome> outcomes = evaluateRanking(table, coreset, {0, 1}, rankings, {1, 2, 3});
  REQUIRE(outcomes.size() == 3);
  // K = 1: a.o keeps column 0 (90); b.o's first list may not be used, so -Oz.
  CHECK(outcomes[0].budget == 1);
  CHECK(outcomes[0].geomeanChange == Approx(std::exp(-std::log(100.0 / 90) / 2) - 1));
  CHECK(outcomes[0].irInstructionChange == Approx((900.0 + 1000) / 2000 - 1));
  // K = 2: a.o keeps column 1 (80); b.o column 1 (95).
  CHECK(outcomes[1].geomeanChange == Approx(std::exp(-(std::log(100.0 / 80) + std::log(100.0 / 95)) / 2) - 1));
  CHECK(outcomes[1].irInstructionChange == Approx((1100.0 + 1000) / 2000 - 1));
  // K = 3: a.o's third list is larger than what it has.
  CHECK(outcomes[2].geomeanChange == Approx(outcomes[1].geomeanChange));

  // A ranking that never gains keeps -Oz everywhere.
  const std::vector<BudgetOutcome> none = evaluateRanking(table, coreset, {1}, {{0}}, {1});
  CHECK(none[0].geomeanChange == 0);
  CHECK(none[0].irInstructionChange == 0);
}
