#include <catch2/catch.hpp>

#include <random>

#include "mlgo/store/store_model.h"

using namespace mlgo;
using namespace mlgo::store;

namespace {

StoredTrial trial(const std::string &pipeline, uint64_t text, uint64_t work) {
  StoredTrial made{pipeline, true, {}, 0, work, std::nullopt};
  made.sizes.text = text;
  return made;
}

StoredUnit unitOf(const std::string &key, std::vector<StoredTrial> trials, const std::string &module = "") {
  StoredUnit unit{key, module.empty() ? key + ".o" : module, false, {}, std::nullopt};
  for (StoredTrial &made : trials) unit.trials.emplace(made.pipeline, made);
  return unit;
}

std::map<std::string, StoredVerdict> passing(const std::vector<StoredUnit> &units) {
  std::map<std::string, StoredVerdict> verdicts;
  for (const StoredUnit &unit : units)
    for (const auto &[pipeline, made] : unit.trials)
      if (!pipeline.empty()) verdicts[pipeline] = {true, false, ""};
  return verdicts;
}

std::vector<const StoredUnit *> pointers(const std::vector<StoredUnit> &units) {
  std::vector<const StoredUnit *> all;
  for (const StoredUnit &unit : units) all.push_back(&unit);
  return all;
}

uint64_t costOf(const std::vector<StoredUnit> &units, const std::map<std::string, std::string> &choices) {
  uint64_t cost = 0;
  for (const StoredUnit &unit : units) cost += unit.trials.at(choices.at(unit.key)).work;
  return cost;
}

}  // namespace

TEST_CASE("store model: an expensive list wins on a large unit, paid for by cheap lists elsewhere", "[store]") {
  // The large unit's outliner-like list saves 1,000 bytes at 1.3x its
  // compile: over a bound of its own, within the build's once the small
  // units take lists that compile faster than -Oz.
  const std::vector<StoredUnit> units{
      unitOf("large", {trial("", 10000, 1000), trial("outline", 9000, 1300), trial("modest", 9800, 1040)}),
      unitOf("small1", {trial("", 2000, 1000), trial("cheap1", 1990, 850)}),
      unitOf("small2", {trial("", 2000, 1000), trial("cheap2", 1995, 850)})};
  const auto verdicts = passing(units);
  CHECK(chooseTrial(units[0], verdicts) == std::optional<std::string>("modest"));
  const std::map<std::string, std::string> choices = chooseForBuild(pointers(units), verdicts, kDefaultCostBound);
  CHECK(choices.at("large") == "outline");
  CHECK(choices.at("small1") == "cheap1");
  CHECK(choices.at("small2") == "cheap2");
  CHECK(costOf(units, choices) <= uint64_t(kDefaultCostBound * 3000));
  // At a bound of 1, there is room for the outliner only because the small units pay for it.
  const auto tight = chooseForBuild(pointers(units), verdicts, 1.0);
  CHECK(tight.at("large") == "outline");
  CHECK(costOf(units, tight) <= 3000);
  // A list the gate refused is never chosen, however small.
  auto refused = verdicts;
  refused["outline"] = {false, false, "prog: wrong answer"};
  CHECK(chooseForBuild(pointers(units), refused, kDefaultCostBound).at("large") == "modest");
}

TEST_CASE("store model: the build's choices keep its cost bound and never make a unit larger", "[store]") {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<StoredUnit> units;
    uint64_t plainCost = 0;
    for (int u = 0; u < 6; ++u) {
      const uint64_t bytes = 500 + random() % 20000, work = 100 + random() % 5000;
      std::vector<StoredTrial> trials{trial("", bytes, work)};
      for (int t = 0; t < 8; ++t)
        trials.push_back(trial("u" + std::to_string(u) + "l" + std::to_string(t),
                               bytes * (80 + random() % 40) / 100, work * (50 + random() % 300) / 100));
      units.push_back(unitOf("unit" + std::to_string(u), trials));
      plainCost += work;
    }
    const double bound = 1.0 + double(random() % 50) / 100;
    const auto choices = chooseForBuild(pointers(units), passing(units), bound);
    REQUIRE(choices.size() == units.size());
    CHECK(double(costOf(units, choices)) <= bound * double(plainCost));
    for (const StoredUnit &unit : units)
      CHECK(unit.trials.at(choices.at(unit.key)).sizes.text <= unit.trials.at("").sizes.text);
    // A larger bound never ships more bytes.
    const auto looser = chooseForBuild(pointers(units), passing(units), bound + 0.5);
    uint64_t bytes = 0, looserBytes = 0;
    for (const StoredUnit &unit : units) {
      bytes += unit.trials.at(choices.at(unit.key)).sizes.text;
      looserBytes += unit.trials.at(looser.at(unit.key)).sizes.text;
    }
    CHECK(looserBytes <= bytes);
  }
}

TEST_CASE("store model: a build is made of each module's unit used last", "[store]") {
  std::vector<StoredUnit> units{unitOf("old", {trial("", 100, 10)}, "a.o"), unitOf("new", {trial("", 90, 10)}, "a.o"),
                                unitOf("other", {trial("", 50, 10)}, "b.o")};
  units[0].used = 100;
  units[1].used = 200;
  std::vector<std::string> keys;
  for (const StoredUnit *unit : currentUnits(units)) keys.push_back(unit->key);
  CHECK(keys == std::vector<std::string>{"new", "other"});
  units[0].used = 300;  // the old version was checked out and built again
  keys.clear();
  for (const StoredUnit *unit : currentUnits(units)) keys.push_back(unit->key);
  CHECK(keys == std::vector<std::string>{"old", "other"});
}

TEST_CASE("store model: a build's trials go where the expected linked gain is largest", "[store]") {
  std::vector<StoredUnit> units{
      unitOf("large", {trial("", 20000, 1000)}),
      unitOf("medium", {trial("", 4000, 1000)}),
      unitOf("tiny", {trial("", 60, 1000)}),
  };
  // A decided unit: it has tried the whole budget.
  StoredUnit decided = unitOf("decided", {trial("", 30000, 1000)});
  for (int t = 0; t < 20; ++t) decided.trials.emplace("d" + std::to_string(t), trial("d" + std::to_string(t), 29000, 900));
  units.push_back(decided);
  const auto shares = explorationShares(pointers(units), 5, 20);
  CHECK(shares.at("large") > shares.at("medium"));
  CHECK(shares.at("large") >= 10);
  CHECK(shares.at("tiny") == 0);
  CHECK(shares.at("decided") == 0);
  size_t total = 0;
  for (const auto &[key, share] : shares) total += share;
  CHECK(total == 5 * units.size());
  CHECK(shares.at("large") <= kMaxShareFactor * 5);
  // The same store, the same shares.
  CHECK(explorationShares(pointers(units), 5, 20) == shares);
  // A unit whose own trials found much is worth more than the prior says.
  StoredUnit promising = unitOf("medium", {trial("", 4000, 1000), trial("x", 3000, 1000)});
  units[1] = promising;
  CHECK(explorationShares(pointers(units), 5, 20).at("medium") > shares.at("medium"));
}

TEST_CASE("store model: a build's exploration is N plain builds of compile cost, shared at one price", "[store]") {
  // The large unit compiles 10x slower: its trials cost 10x as much.
  const std::vector<StoredUnit> units{unitOf("large", {trial("", 20000, 10000)}), unitOf("a", {trial("", 2000, 1000)}),
                                      unitOf("b", {trial("", 2000, 1000)})};
  const auto shares = explorationShares(pointers(units), 2, 500);
  const double cost = 10000.0 * shares.at("large") + 1000.0 * (shares.at("a") + shares.at("b"));
  CHECK(cost <= 2 * (10000 + 1000 + 1000));
  CHECK(cost > 2 * (10000 + 1000 + 1000) - 10000);  // what is left buys no more of the large unit
  CHECK(shares.at("large") >= 1);
  // Each unit's share comes from the unit and the price alone: a -j build's
  // compiles, reading the store at different moments, agree.
  const double price = explorationPrice(pointers(units), 2, 500);
  for (const StoredUnit &unit : units) CHECK(explorationShare(unit, price, 2, 500) == shares.at(unit.key));
  StoredUnit explored = units[0];
  for (size_t t = 0; t < shares.at("large"); ++t)
    explored.trials.emplace("t" + std::to_string(t), trial("t" + std::to_string(t), 20000, 10000));
  // Once it has explored, its next share at the same price is smaller: the price holds the build's spending.
  CHECK(explorationShare(explored, price, 2, 500) < shares.at("large"));
}

TEST_CASE("store model: a cleanup removes earlier versions first, then the least recently used, and keeps recent ones",
          "[store]") {
  std::vector<StoredUnit> units{unitOf("a-old", {trial("", 100, 10)}, "a.o"), unitOf("a-new", {trial("", 100, 10)}, "a.o"),
                                unitOf("b", {trial("", 100, 10)}), unitOf("c", {trial("", 100, 10)})};
  units[0].used = 500;  // the earlier version, used after b: still the first to go
  units[1].used = 900;
  units[2].used = 100;
  units[3].used = 700;
  const std::map<std::string, uint64_t> footprint{{"a-old", 10}, {"a-new", 10}, {"b", 10}, {"c", 10}};
  CHECK(unitsToRemove(units, footprint, 40, 40, 1000).empty());
  CHECK(unitsToRemove(units, footprint, 40, 35, 1000) == std::vector<std::string>{"a-old"});
  CHECK(unitsToRemove(units, footprint, 40, 15, 1000) == std::vector<std::string>{"a-old", "b", "c"});
  // Units used since 600 stay whatever the bound: the store stays over it.
  CHECK(unitsToRemove(units, footprint, 40, 0, 600) == std::vector<std::string>{"a-old", "b"});
}
