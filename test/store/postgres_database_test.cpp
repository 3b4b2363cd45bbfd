// The PostgreSQL store against the SQLite one, on a real server started for
// the test (test/support/postgres_server.h).
#include <catch2/catch.hpp>

#include <limits>

#include <nlohmann/json.hpp>

#include "mlgo/store/build_store.h"
#include "mlgo/support/errors.h"
#include "support/postgres_server.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::store;
using Catch::Matchers::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const StoreIdentity kIdentity{"19.1.7", "space", "2"};

StoredTrial trial(const std::string &pipeline, uint64_t text, uint64_t work, bool compiled = true) {
  StoredTrial made{pipeline, compiled, {}, 0, work, std::nullopt};
  made.sizes.text = text;
  made.sizes.data = text / 10;
  made.irInstructions = text * 3;
  return made;
}

/// Writes through every kind of write a build makes: units and trials
/// (one a C++ unit, one an edited file's two versions), verdicts, what the
/// linker kept, objects' origins, links, a verified link, the cost bound,
/// a unit moved to its portable key, and a foreign writer.
void writeBuilds(BuildStore &store) {
  store.recordTrials("k1", "a.o", false, {trial("", 1000, 100), trial("p1", 900, 100), trial("p2", 850, 400)});
  store.recordTrials("k2", "b.o", true, {trial("", 500, 50), trial("p1", 480, 55), trial("broken", 0, 0, false)});
  store.recordTrials("old-c", "c.o", false, {trial("", 300, 30), trial("p2", 250, 30)});
  store.recordTrials("k3", "c.o", false, {trial("", 310, 30)});
  store.recordVerdict("p1", {true, false, ""});
  store.recordVerdict("p2", {false, true, "prog: link failed"});
  store.recordKept({{"k1", "", {950, 0, 90, 0}}, {"k1", "p1", {880, 0, 90, 0}}, {"k9", "", {1, 0, 0, 0}}});
  store.recordObjects({{"h1", {"k1", "p1", "tree-a"}}, {"h2", {"k1", "", "tree-a"}}, {"h3", {"k2", "", ""}}});
  store.recordObjects({{"h1", {"k1", "p1", "tree-b"}}});
  store.recordLink({"/b/prog", 1200, 1300, 0});
  store.recordVerifiedLink("link-1");
  store.setCostBound(2.5);
  store.rekeyUnit("k2", "k2-portable");
  store.noteForeignWriter();
}

/// What a store holds and decides, in one comparable value (the times of
/// use left out: each store stamps its own clock).
json contents(const BuildStore &store) {
  json out{{"units", json::array()}, {"verdicts", json::object()}, {"links", json::array()}};
  for (const StoredUnit &unit : store.units()) {
    json trials = json::object();
    for (const auto &[pipeline, made] : unit.trials)
      trials[pipeline] = {made.compiled, made.sizes.text, made.sizes.data, made.irInstructions, made.work,
                          made.kept ? json(made.kept->text) : json()};
    out["units"].push_back({unit.key, unit.module, unit.cxx, unit.choice ? json(*unit.choice) : json(), trials,
                            store.plainObjectsOf(unit.key), store.lineageChoices(unit.module, unit.key)});
  }
  for (const auto &[pipeline, verdict] : store.verdicts())
    out["verdicts"][pipeline] = {verdict.passed, verdict.cxxLinkOnly, verdict.failure};
  for (const StoredLink &link : store.links()) out["links"].push_back({link.output, link.shipped, link.plain});
  for (const std::string hash : {"h1", "h2", "h3", "h4"}) {
    const std::optional<ObjectOrigin> origin = store.objectOrigin(hash);
    out["objects"][hash] = origin ? json{origin->unit, origin->pipeline, origin->plain} : json();
  }
  out["winning"] = store.winningPipelines();
  out["gated"] = store.gatedPipelines();
  out["verified"] = {store.linkVerified("link-1"), store.linkVerified("link-2")};
  const StoreSummary summary = store.summarize();
  out["summary"] = {summary.units,         summary.trials,         summary.verdicts,
                    summary.keptTrials,    summary.improvedUnits,  summary.recordedTextData,
                    summary.chosenTextData, summary.costBound,     summary.earlierVersions,
                    summary.foreignWriters, summary.linkedShipped, summary.linkedPlain};
  return out;
}

}  // namespace

TEST_CASE("PostgreSQL store: the same builds leave it holding and deciding what an SQLite store does",
          "[store][postgres]") {
  test::PostgresServer server;
  test::ScratchDirectory scratch;
  BuildStore embedded((scratch / "units.db").string(), kIdentity);
  BuildStore shared(server.uri(), kIdentity);
  writeBuilds(embedded);
  writeBuilds(shared);
  const json expected = contents(embedded);
  // The choices the scenario exercises: a gated list, a verdict that only
  // breaks C++ links (fine for C), an edited file's lineage.
  CHECK(expected["units"].size() == 4);
  CHECK(expected["winning"] == json::array({"p1", "p2"}));
  CHECK(contents(shared) == expected);
  CHECK(shared.integrity() == "ok");
  CHECK(shared.costBound() == 2.5);
  // A second connection (another compile) reads the same rows.
  CHECK(contents(*BuildStore::openExisting(server.uri())) == expected);
  // The exploration price is kept per store, as SQLite keeps it.
  CHECK(shared.refreshExplorationPrice(3, 500) == embedded.refreshExplorationPrice(3, 500));
  CHECK(shared.explorationPrice(3, 500, 0) == embedded.explorationPrice(3, 500, 0));
  // A cleanup removes the same units from both.
  const StoreCleanup fromEmbedded = embedded.cleanupPlan(0, std::numeric_limits<int64_t>::max());
  const StoreCleanup fromShared = shared.cleanupPlan(0, std::numeric_limits<int64_t>::max());
  CHECK(fromShared.removedUnits == fromEmbedded.removedUnits);
  CHECK(fromShared.bytesBefore > 0);
  // A cleanup to a bound the server's tables alone exceed removes every unit
  // not used since the cutoff, as it does from the file.
  const int64_t cutoff = std::numeric_limits<int64_t>::max();
  CHECK(shared.cleanup(1, cutoff).removedUnits == embedded.cleanup(1, cutoff).removedUnits);
  CHECK(contents(shared) == contents(embedded));
  CHECK(shared.units().empty());
  CHECK(shared.integrity() == "ok");
}

TEST_CASE("PostgreSQL store: an unreachable server and a refused login are StoreUnavailable, never with the password",
          "[store][postgres]") {
  test::PostgresServer server;
  test::ScratchDirectory scratch;
  const std::string nowhere = "postgresql://mlgo:s3cret@/postgres?host=" + (scratch / "no-server").string();
  try {
    BuildStore store(nowhere, kIdentity);
    FAIL("opened a store on no server");
  } catch (const StoreUnavailable &e) {
    CHECK_THAT(e.what(), Contains("postgresql://mlgo@/postgres") && Contains("cannot connect"));
    CHECK_THAT(e.what(), !Contains("s3cret"));
  }
  const std::string refused = "postgresql://nobody:s3cret@/postgres?host=" + server.socketDirectory().string() +
                              "&password=s3cret";
  try {
    BuildStore store(refused, kIdentity);
    FAIL("a role the server does not know logged in");
  } catch (const StoreUnavailable &e) {
    CHECK_THAT(e.what(), Contains("nobody") && !Contains("s3cret"));
  }
  CHECK(shownLocation(refused) == "postgresql://nobody@/postgres?host=" + server.socketDirectory().string());
  CHECK(shownLocation("postgresql://u:p@db.example:5432/x?password=p&sslmode=require") ==
        "postgresql://u@db.example:5432/x?sslmode=require");
  CHECK(shownLocation("postgres://db:5432/x") == "postgres://db:5432/x");

  // A database with no store is not one to read; tables of other shapes are not a store.
  server.createDatabase("empty");
  CHECK_THROWS_WITH(BuildStore::openExisting(server.uri("empty")), Contains("no store there"));
  server.createDatabase("other");
  { BuildStore made(server.uri("other"), kIdentity); }
  CHECK(BuildStore::openExisting(server.uri("other"))->storedIdentity() == kIdentity);
  // A store of another mlgo keeps its identity; the store's rows are untrusted: a name is never a path.
  BuildStore store(server.uri("other"), {"18.1.0", "space", "2"});
  CHECK(store.storedIdentity() == kIdentity);
  store.recordObjects({{"h", {"k", "p", "../../etc/passwd"}}});
  CHECK_THROWS_WITH(store.recordedObjectPath(store.objectOrigin("h")->plain),
                    Contains("objects.plain") && Contains("never used as a path"));
}

TEST_CASE("PostgreSQL store: a server killed while a store is open makes its next use StoreUnavailable",
          "[store][postgres]") {
  auto server = std::make_unique<test::PostgresServer>();
  BuildStore store(server->uri(), kIdentity);
  store.recordTrials("k1", "a.o", false, {trial("", 100, 10)});
  server->kill();
  CHECK_THROWS_AS(store.unit("k1"), StoreUnavailable);
  CHECK_THROWS_AS(store.recordTrials("k2", "b.o", false, {trial("", 100, 10)}), StoreUnavailable);
}
