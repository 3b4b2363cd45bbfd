#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <limits>

#include <sqlite3.h>

#include "mlgo/store/build_store.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::store;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

StoredTrial trial(const std::string &pipeline, uint64_t text, uint64_t work, bool compiled = true) {
  StoredTrial made{pipeline, compiled, {}, 0, work, std::nullopt};
  made.sizes.text = text;
  return made;
}

StoredUnit unitOf(bool cxx, std::vector<StoredTrial> trials) {
  StoredUnit unit{"key", "a.o", cxx, {}, std::nullopt};
  for (StoredTrial &made : trials) unit.trials.emplace(made.pipeline, made);
  return unit;
}

const StoreIdentity kIdentity{"19.1.7", "space", "2"};

}  // namespace

TEST_CASE("build store: a unit's choice is its smallest gated list within the work limit", "[store]") {
  const StoredUnit unit =
      unitOf(false, {trial("", 100, 1000), trial("small", 80, 950), trial("smaller", 70, 5000),
                     trial("dearer", 75, 1051), trial("broken", 10, 100, false), trial("ungated", 60, 100)});
  std::map<std::string, StoredVerdict> verdicts{{"small", {true, false, ""}},
                                                {"smaller", {true, false, ""}},
                                                {"dearer", {true, false, ""}},
                                                {"broken", {true, false, ""}}};
  // "smaller" costs a rebuild 5x the recorded level's compile and "dearer"
  // a little more than it; "ungated" has no verdict; "broken" did not compile.
  CHECK(chooseTrial(unit, verdicts) == std::optional<std::string>("small"));
  verdicts["small"] = {false, false, "prog: wrong answer"};
  CHECK(chooseTrial(unit, verdicts) == std::optional<std::string>(""));
  // A list that only breaks C++ programs' links is usable for C, not C++.
  verdicts["small"] = {false, true, "prog: link failed"};
  CHECK(chooseTrial(unit, verdicts) == std::optional<std::string>("small"));
  StoredUnit cxx = unit;
  cxx.cxx = true;
  CHECK(chooseTrial(cxx, verdicts) == std::optional<std::string>(""));
  // Ties go to the recorded level, then the shorter pipeline.
  const StoredUnit ties = unitOf(false, {trial("", 100, 1000), trial("aaaa", 100, 900), trial("bb", 90, 900),
                                         trial("cccc", 90, 900)});
  const std::map<std::string, StoredVerdict> passed{
      {"aaaa", {true, false, ""}}, {"bb", {true, false, ""}}, {"cccc", {true, false, ""}}};
  CHECK(chooseTrial(ties, passed) == std::optional<std::string>("bb"));
  CHECK(chooseTrial(unitOf(false, {trial("", 100, 1000), trial("aaaa", 100, 900)}), passed) ==
        std::optional<std::string>(""));
  // No recorded level, no choice.
  CHECK_FALSE(chooseTrial(unitOf(false, {trial("", 0, 0, false), trial("bb", 90, 900)}), passed));
}

TEST_CASE("build store: where the linker's kept bytes are known, what ships decides", "[store]") {
  const std::map<std::string, StoredVerdict> passed{{"a", {true, false, ""}}, {"b", {true, false, ""}}};
  auto keptOf = [](uint64_t text) { return SectionSizes{text, 0, 0, 0}; };
  // By objects "a" is smallest; but the linker kept more of "a" than of the
  // recorded level (an inline function's copy moved to it): "b" ships least.
  StoredUnit unit = unitOf(false, {trial("", 100, 1000), trial("a", 80, 900), trial("b", 90, 900)});
  CHECK(chooseTrial(unit, passed) == std::optional<std::string>("a"));
  unit.trials.at("").kept = keptOf(60);
  unit.trials.at("a").kept = keptOf(70);
  CHECK(shippedBytes(unit, unit.trials.at("a")) == 70);
  // "b" is unknown to the maps: its object less what the linker dropped of the recorded level's.
  CHECK(shippedBytes(unit, unit.trials.at("b")) == 90 - (100 - 60));
  CHECK(chooseTrial(unit, passed) == std::optional<std::string>("b"));
  // A list that grows what ships never beats the recorded level.
  unit.trials.at("b").kept = keptOf(61);
  CHECK(chooseTrial(unit, passed) == std::optional<std::string>(""));
}

TEST_CASE("build store: kept bytes persist, follow the latest build, and travel in a merge", "[store]") {
  test::ScratchDirectory scratch;
  BuildStore store(scratch / "units.db", kIdentity);
  store.recordTrials("k1", "a.o", false, {trial("", 100, 1000), trial("a", 80, 900)});
  store.recordVerdict("a", {true, false, ""});
  CHECK(store.unit("k1")->choice == std::optional<std::string>("a"));
  // Entries for trials the store does not hold (another unit, a list never compiled) are left out.
  store.recordKept({{"k1", "", {60, 0, 0, 0}}, {"k1", "a", {70, 0, 0, 0}}, {"k1", "never", {1, 0, 0, 0}},
                    {"k9", "", {1, 0, 0, 0}}});
  CHECK(store.unit("k1")->choice == std::optional<std::string>(""));
  CHECK(store.unit("k1")->trials.at("a").kept->text == 70);
  CHECK_FALSE(store.unit("k1")->trials.count("never"));
  CHECK_FALSE(store.unit("k9"));
  CHECK(store.summarize().keptTrials == 2);
  store.recordKept({{"k1", "a", {50, 0, 0, 0}}});  // a later build linked it smaller
  CHECK(store.unit("k1")->choice == std::optional<std::string>("a"));
  BuildStore joined(scratch / "joined.db", kIdentity);
  joined.merge(store);
  CHECK(joined.unit("k1")->trials.at("a").kept->text == 50);
  CHECK(joined.unit("k1")->choice == std::optional<std::string>("a"));
  CHECK(joined.integrity() == "ok");
}

TEST_CASE("build store: trials and verdicts persist, choices follow, and another identity is told once", "[store]") {
  test::ScratchDirectory scratch;
  const auto file = scratch / "units.db";
  {
    BuildStore store(file, kIdentity);
    CHECK(store.usable());
    store.recordTrials("k1", "b.o", false, {trial("", 100, 1000), trial("list", 90, 1000)});
    CHECK(store.unit("k1")->choice == std::optional<std::string>(""));  // not gated yet
    store.recordVerdict("list", {true, false, ""});
    CHECK(store.unit("k1")->choice == std::optional<std::string>("list"));
    // A second result for a stored list is not taken: the first stands.
    store.recordTrials("k1", "a.o", false, {trial("list", 50, 1000)});
    CHECK(store.unit("k1")->trials.at("list").sizes.text == 90);
    CHECK(store.unit("k1")->module == "a.o");  // the smallest name seen
    CHECK(store.winningPipelines() == std::vector<std::string>{"list"});
  }
  BuildStore reopened(file, kIdentity);
  CHECK(reopened.unit("k1")->choice == std::optional<std::string>("list"));
  CHECK(reopened.integrity() == "ok");
  BuildStore other(file, {"19.1.7", "another space", "2"});
  CHECK_FALSE(other.usable());
  CHECK(other.noteForeignWriter());
  CHECK_FALSE(other.noteForeignWriter());
  CHECK(reopened.summarize().foreignWriters.size() == 1);
}

TEST_CASE("build store: a store whose work came from another cost model is not this mlgo's", "[store]") {
  test::ScratchDirectory scratch;
  const auto file = scratch / "units.db";
  { BuildStore(file, {"19.1.7", "space", "1"}); }
  BuildStore newer(file, kIdentity);
  CHECK_FALSE(newer.usable());
  CHECK(newer.storedIdentity().costModel == "1");  // opening it did not relabel it
  // A store from before the cost model was named has no such key: model 1's.
  {
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "DELETE FROM meta WHERE key = 'cost_model'", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  BuildStore older(file, kIdentity);
  CHECK_FALSE(older.usable());
  CHECK(older.storedIdentity().costModel == "1");
  CHECK(describeIdentity(older.storedIdentity()) == "LLVM 19.1.7, search space space, cost model 1");
}

TEST_CASE("build store: a file that is not a store is refused, naming it", "[store]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "notes.txt", "not a database at all, just some text that is long enough\n");
  CHECK_THROWS_WITH(BuildStore(scratch / "notes.txt", kIdentity), Contains("notes.txt"));
  CHECK_THROWS_WITH(BuildStore(scratch.path(), kIdentity), Contains("is a directory"));
  CHECK_THROWS_WITH(BuildStore(scratch / "missing" / "units.db", kIdentity), Contains("directory does not exist"));
  CHECK_THROWS_WITH(BuildStore::openExisting(scratch / "none.db"), Contains("no store there"));
}

TEST_CASE("build store: a format-1 store is read as it is and brought to format 2 when written", "[store]") {
  test::ScratchDirectory scratch;
  const auto file = scratch / "units.db";
  {
    BuildStore store(file, kIdentity);
    store.recordTrials("k1", "a.o", false, {trial("", 100, 1000), trial("list", 90, 1000)});
    store.recordVerdict("list", {true, false, ""});
  }
  auto query = [&file](const char *sql) {
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  };
  // What an mlgo of format 1 wrote: no units.used.
  query("ALTER TABLE units DROP COLUMN used; DROP TABLE links; UPDATE meta SET value = '1' WHERE key = 'format'");
  const std::string before = readFile(file);
  {
    auto readOnly = BuildStore::openExisting(file);
    CHECK(readOnly->unit("k1")->choice == std::optional<std::string>("list"));
    CHECK(readOnly->unit("k1")->used == 0);
    CHECK(readOnly->links().empty());
  }
  CHECK(readFile(file) == before);
  BuildStore written(file, kIdentity);
  CHECK(written.unit("k1")->choice == std::optional<std::string>("list"));
  written.noteUsed("k1");
  CHECK(written.unit("k1")->used > 0);
  written.recordLink({"/b/program", 900, 1000, 0});
  CHECK(written.summarize().linkedPlain - written.summarize().linkedShipped == 100);
  CHECK(written.integrity() == "ok");
  // A store of a format this mlgo does not know is refused by name.
  query("UPDATE meta SET value = '9' WHERE key = 'format'");
  CHECK_THROWS_WITH(BuildStore(file, kIdentity), Contains("meta.format") && Contains("\"9\""));
}

TEST_CASE("build store: one compile budget for the build, the bound the latest build gave", "[store]") {
  test::ScratchDirectory scratch;
  BuildStore store(scratch / "units.db", kIdentity);
  CHECK(store.costBound() == kDefaultCostBound);
  // The large unit's smallest list costs 1.3x its compile: within the
  // build's budget only while the small unit takes its cheaper list.
  store.recordTrials("large", "large.o", false, {trial("", 10000, 1000), trial("outline", 9000, 1300)});
  store.recordVerdict("outline", {true, false, ""});
  CHECK(store.unit("large")->choice == std::optional<std::string>(""));
  store.recordTrials("small", "small.o", false, {trial("", 2000, 1000), trial("cheap", 1990, 700)});
  CHECK(store.unit("large")->choice == std::optional<std::string>(""));  // "cheap" is not gated yet
  store.recordVerdict("cheap", {true, false, ""});
  CHECK(store.unit("large")->choice == std::optional<std::string>("outline"));
  CHECK(store.unit("small")->choice == std::optional<std::string>("cheap"));
  // The bound persists; at 1.0 the list still fits, as the small unit pays for it.
  store.setCostBound(1.5);
  CHECK(BuildStore::openExisting(scratch / "units.db")->costBound() == 1.5);
  store.setCostBound(1.0);
  CHECK(store.unit("large")->choice == std::optional<std::string>("outline"));
  // An edited version of the small unit replaces it in the build: its
  // earlier version no longer pays for the large unit's list.
  store.recordTrials("small-edited", "small.o", false, {trial("", 2000, 1000)});
  store.noteUsed("small-edited");
  CHECK(store.unit("large")->choice == std::optional<std::string>(""));
  CHECK(store.unit("small")->choice == std::optional<std::string>("cheap"));  // within its own budget
}

TEST_CASE("build store: a unit's lineage is its module's other versions' choices, latest used first", "[store]") {
  test::ScratchDirectory scratch;
  BuildStore store(scratch / "units.db", kIdentity);
  auto decide = [&](const std::string &key, const std::string &module, const std::string &pipeline) {
    store.recordTrials(key, module, false, {trial("", 100, 1000), trial(pipeline, 90, 1000)});
    store.recordVerdict(pipeline, {true, false, ""});
  };
  decide("v1", "a.o", "first");
  decide("v2", "a.o", "second");
  decide("b", "b.o", "elsewhere");
  store.recordTrials("v3", "a.o", false, {trial("", 100, 1000)});  // the edit now built
  CHECK(store.lineageChoices("a.o", "v3") == std::vector<std::string>{"second", "first"});
  CHECK(store.lineageChoices("a.o", "v2") == std::vector<std::string>{"first"});
  CHECK(store.lineageChoices("c.o", "x").empty());
}

TEST_CASE("build store: a cleanup to a size bound removes units with their objects and keeps the store usable",
          "[store]") {
  test::ScratchDirectory scratch;
  const fs::path file = scratch / "units.db";
  {
    BuildStore store(file, kIdentity);
    for (int u = 0; u < 40; ++u) {
      const std::string key = "unit" + std::to_string(u);
      std::vector<StoredTrial> trials{trial("", 1000, 1000)};
      for (int t = 0; t < 20; ++t) trials.push_back(trial("list" + std::to_string(t), 990 - t, 1000));
      store.recordTrials(key, "m" + std::to_string(u) + ".o", false, trials);
      fs::create_directories(store.recordedObjectPath(key).parent_path());
      writeFileAtomically(store.recordedObjectPath(key), std::string(4000, 'o'));
    }
    store.noteUsed("unit39");  // the latest use: the last to go
  }
  BuildStore store(file, kIdentity);
  const uint64_t before = store.bytesOnDisk();
  const StoreCleanup plan = store.cleanupPlan(before / 2, std::numeric_limits<int64_t>::max());
  CHECK(store.bytesOnDisk() == before);  // a plan changes nothing
  REQUIRE(!plan.removedUnits.empty());
  CHECK(plan.removedUnits.front() == "unit0");
  CHECK(std::find(plan.removedUnits.begin(), plan.removedUnits.end(), "unit39") == plan.removedUnits.end());
  CHECK(plan.bytesAfter <= before / 2);
  const StoreCleanup done = store.cleanup(before / 2, std::numeric_limits<int64_t>::max());
  CHECK(done.removedUnits == plan.removedUnits);
  CHECK(done.bytesAfter < before);
  CHECK(store.bytesOnDisk() == done.bytesAfter);
  CHECK(done.bytesAfter <= before / 2 + before / 10);  // the plan's estimate of a row is an average
  CHECK(!store.unit("unit0"));
  CHECK(!fs::exists(store.recordedObjectPath("unit0")));
  REQUIRE(store.unit("unit39"));
  CHECK(fs::exists(store.recordedObjectPath("unit39")));
  CHECK(store.integrity() == "ok");
  CHECK(store.summarize().units == 40 - done.removedUnits.size());
  // Within the bound already: nothing goes.
  CHECK(store.cleanup(before, std::numeric_limits<int64_t>::max()).removedUnits.empty());
}

TEST_CASE("build store: a unit kept under its exact key moves to its portable key with its rows and plain objects",
          "[store]") {
  test::ScratchDirectory scratch;
  BuildStore store(scratch / "units.db", kIdentity);
  store.recordTrials("exact", "a.o", false, {trial("", 100, 1000), trial("list", 90, 1000)});
  store.recordVerdict("list", {true, false, ""});
  store.recordKept({{"exact", "", {80, 0, 0, 0}}});
  // As a store written before keys travelled: the plain object named by the unit's key.
  store.recordObjects({{"object-hash", {"exact", "list", ""}}});
  const std::optional<StoredUnit> before = store.unit("exact");
  REQUIRE(before);
  CHECK(store.rekeyUnit("exact", "portable"));
  CHECK(!store.unit("exact"));
  const std::optional<StoredUnit> moved = store.unit("portable");
  REQUIRE(moved);
  CHECK(moved->choice == before->choice);
  CHECK(moved->trials.size() == 2);
  CHECK(moved->trials.at("").kept);
  const std::optional<ObjectOrigin> origin = store.objectOrigin("object-hash");
  REQUIRE(origin);
  CHECK(origin->unit == "portable");
  CHECK(origin->plain == "exact");  // its recorded object keeps its name
  CHECK(store.plainObjectsOf("portable") == std::vector<std::string>{"exact", "portable"});
  // Nothing to move, or a portable key taken already: nothing moves.
  CHECK_FALSE(store.rekeyUnit("exact", "portable"));
  store.recordTrials("other", "b.o", false, {trial("", 100, 1000)});
  CHECK_FALSE(store.rekeyUnit("other", "portable"));
  CHECK(store.unit("other"));
  CHECK(store.integrity() == "ok");
}

TEST_CASE("build store: a cleanup removes other trees' recorded objects first, least recently used, and keeps the "
          "unit",
          "[store]") {
  test::ScratchDirectory scratch;
  BuildStore store(scratch / "units.db", kIdentity);
  store.recordTrials("unit", "a.o", false, {trial("", 1000, 1000), trial("list", 900, 1000)});
  // The unit's recorded object in three trees, the first used longest ago.
  const std::vector<std::string> trees{"tree-1", "tree-2", "tree-3"};
  for (size_t t = 0; t < trees.size(); ++t) {
    store.recordObjects({{"listed-" + trees[t], {"unit", "list", trees[t]}}});
    fs::create_directories(store.recordedObjectPath(trees[t]).parent_path());
    writeFileAtomically(store.recordedObjectPath(trees[t]), std::string(100000, 'o'));
    fs::last_write_time(store.recordedObjectPath(trees[t]),
                        fs::file_time_type::clock::now() - std::chrono::hours(24 * (3 - t)));
  }
  // A tree whose objects were another's byte for byte: no origin names its
  // recorded object, which goes before any other, however recent.
  writeFileAtomically(store.recordedObjectPath("unnamed"), std::string(100000, 'o'));
  const uint64_t before = store.bytesOnDisk();
  const int64_t everything = std::numeric_limits<int64_t>::max();
  const StoreCleanup one = store.cleanupPlan(before - 1, everything);
  CHECK(one.removedObjects == std::vector<std::string>{"unnamed"});
  CHECK(one.removedUnits.empty());
  // Objects and units used since a time stay whatever the bound: 60 hours
  // ago leaves only the first tree's object to go, after the unnamed one.
  const int64_t sixtyHoursAgo = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    (std::chrono::system_clock::now() - std::chrono::hours(60)).time_since_epoch())
                                    .count();
  const StoreCleanup recent = store.cleanupPlan(0, sixtyHoursAgo);
  CHECK(recent.removedObjects == std::vector<std::string>{"unnamed", "tree-1"});
  CHECK(recent.removedUnits.empty());
  // Two go before the unit would; the latest tree's object stays with it.
  const StoreCleanup done = store.cleanup(before - 250000, everything);
  CHECK(done.removedObjects == std::vector<std::string>{"unnamed", "tree-1", "tree-2"});
  CHECK(done.removedUnits.empty());
  CHECK(!fs::exists(store.recordedObjectPath("tree-1")));
  CHECK(fs::exists(store.recordedObjectPath("tree-3")));
  REQUIRE(store.unit("unit"));
  // Their origins stay known: a link of that tree's objects is not taken for plain.
  CHECK(store.objectOrigin("listed-tree-1"));
}
