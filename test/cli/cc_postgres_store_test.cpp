// mlgo cc's store on a PostgreSQL server: builds of two trees at once ("two
// machines"), store-merge both ways, and a server that dies mid-build.
#include <catch2/catch.hpp>

#include <thread>

#include <nlohmann/json.hpp>

#include "cli/store_project.h"
#include "mlgo/store/build_store.h"
#include "mlgo/support/atomic_file.h"
#include "support/postgres_server.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json storeInfo(const std::string &store) {
  const test::CommandOutcome info = test::runMlgo({"store-info", "--store", store, "--json", "--units"});
  INFO(info.err);
  REQUIRE(info.exitCode == 0);
  return json::parse(info.out);
}

/// Every row a store holds that a merge carries, in one comparable value.
json storeRows(const std::string &location) {
  const auto opened = store::BuildStore::openExisting(location);
  json rows{{"units", json::array()}, {"verdicts", json::object()}, {"links", json::array()}};
  for (const store::StoredUnit &unit : opened->units()) {
    json trials = json::object();
    for (const auto &[pipeline, trial] : unit.trials)
      trials[pipeline] = {trial.compiled, trial.sizes.text, trial.sizes.rodata, trial.sizes.data, trial.sizes.bss,
                          trial.irInstructions, trial.work, trial.kept ? json(trial.kept->text) : json()};
    rows["units"].push_back({unit.key, unit.module, unit.cxx, unit.used, unit.choice ? json(*unit.choice) : json(),
                             trials, opened->plainObjectsOf(unit.key)});
  }
  for (const auto &[pipeline, verdict] : opened->verdicts())
    rows["verdicts"][pipeline] = {verdict.passed, verdict.cxxLinkOnly, verdict.failure};
  for (const store::StoredLink &link : opened->links())
    rows["links"].push_back({link.output, link.shipped, link.plain, link.used});
  return rows;
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("mlgo cc through a PostgreSQL store: two trees built at once keep every unit once, and store-merge "
          "SQLite to PostgreSQL to SQLite keeps every row",
          "[cli][launcher][store][postgres][clang]") {
  test::PostgresServer server;
  test::ScratchDirectory scratch;
  fs::create_directories(scratch / "machine-1");
  fs::create_directories(scratch / "machine-2");
  const std::vector<fs::path> trees{test::storeProject(scratch / "machine-1" / "project"),
                                    test::storeProject(scratch / "machine-2" / "checkout")};
  // Two makes of -j4 at once: eight compiles writing one store.
  std::vector<test::CommandOutcome> built(trees.size());
  std::vector<std::thread> builds;
  for (size_t i = 0; i < trees.size(); ++i)
    builds.emplace_back([&, i] {
      // Each machine keeps its recorded objects in its own cache.
      const std::string cache = "XDG_CACHE_HOME=" + (scratch / ("cache-" + std::to_string(i))).string();
      built[i] = test::makeStoreProject(
          trees[i], test::storeOptions(server.uri(), scratch / ("log" + std::to_string(i)), 2), 4, {}, "-Oz", {cache});
    });
  for (std::thread &build : builds) build.join();
  for (const test::CommandOutcome &outcome : built) {
    INFO(outcome.err);
    REQUIRE(outcome.exitCode == 0);
  }
  const json info = storeInfo(server.uri());
  CHECK(info["integrity"] == "ok");
  CHECK(info["units"] == test::kStoreUnits.size());
  std::set<std::string> modules;
  for (const json &unit : info["unit_list"]) modules.insert(unit["module"].get<std::string>());
  CHECK(modules == test::kStoreUnits);

  // Both ways through the server: every row comes back.
  const std::string copy = (scratch / "copy.db").string(), back = (scratch / "back.db").string();
  REQUIRE(test::runMlgo({"store-merge", "--output", copy, server.uri()}).exitCode == 0);
  server.createDatabase("second");
  const test::CommandOutcome toServer = test::runMlgo({"store-merge", "--output", server.uri("second"), copy});
  INFO(toServer.err);
  REQUIRE(toServer.exitCode == 0);
  REQUIRE(test::runMlgo({"store-merge", "--output", back, server.uri("second")}).exitCode == 0);
  const json rows = storeRows(server.uri());
  CHECK(rows["units"].size() == test::kStoreUnits.size());
  CHECK(storeRows(copy) == rows);
  CHECK(storeRows(server.uri("second")) == rows);
  CHECK(storeRows(back) == rows);
}

TEST_CASE("mlgo cc through a PostgreSQL store: a server killed mid-build, or never there, leaves a build that "
          "succeeds as clang's, with one warning",
          "[cli][launcher][store][postgres][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = test::storeProject(scratch / "project");
  auto server = std::make_unique<test::PostgresServer>();
  const std::string uri = server->uri();
  const std::vector<std::string> options = test::storeOptions(uri, scratch / "log", 2);
  const std::vector<std::string> cache{"XDG_CACHE_HOME=" + (scratch / "cache").string()};
  const test::CommandOutcome first =
      test::makeStoreProject(project, options, 2, {"helpers.o", "tables.o"}, "-Oz", cache);
  INFO(first.err);
  REQUIRE(first.exitCode == 0);
  server->kill();
  const test::CommandOutcome rest = test::makeStoreProject(project, options, 2, {}, "-Oz", cache);
  INFO(rest.err);
  CHECK(rest.exitCode == 0);
  CHECK(occurrences(rest.err, "as clang would") == 1);
  CHECK_THAT(rest.err, Contains("postgresql://mlgo@/postgres"));
  // What was compiled after the server went is clang's object, byte for byte.
  for (const std::string &unit : test::kStoreUnits)
    if (unit != "helpers.o" && unit != "tables.o") {
      INFO(unit);
      const std::string source = (project / "src" / unit).replace_extension(".c").string();
      REQUIRE(test::runIn(project, {"clang-19", "-Oz", "-c", source, "-o", (scratch / "clang.o").string()}).exitCode == 0);
      CHECK(readFile(project / unit) == readFile(scratch / "clang.o"));
    }
}

TEST_CASE("mlgo cc: an SQLite store never loads libpq, and without libmlgo_postgres.so a PostgreSQL store builds "
          "as clang would, with the warning",
          "[cli][launcher][store][postgres][clang]") {
  test::ScratchDirectory scratch;
  const std::string source = (scratch / "unit.c").string();
  writeFileAtomically(source, "int triple(int x) { return 3 * x; }\n");
  const std::string unreachable = "postgresql://mlgo@/mlgo?host=" + (scratch / "no-server").string();
  const std::string cache = "XDG_CACHE_HOME=" + (scratch / "cache").string();
  // Every file the dynamic loader opened while mlgo cc compiled the unit
  // through `store`.
  auto loaded = [&](const std::string &store, const std::string &name) {
    const fs::path log = scratch / ("loader-" + name);
    fs::create_directories(log);
    const test::CommandOutcome outcome = test::runMlgoWithEnvironment(
        {cache, "LD_DEBUG=files", "LD_DEBUG_OUTPUT=" + (log / "ld").string()},
        {"cc", "--store", store, "clang-19", "-Oz", "-c", source, "-o", (scratch / (name + ".o")).string()});
    INFO(outcome.err);
    REQUIRE(outcome.exitCode == 0);
    std::string files;
    for (const auto &entry : fs::directory_iterator(log)) files += readFile(entry.path());
    REQUIRE_THAT(files, Contains("libmlgo_core.so"));  // the log is there at all
    return files;
  };
  CHECK_THAT(loaded((scratch / "units.db").string(), "sqlite"), !Contains("libpq.so") && !Contains("libmlgo_postgres"));
  CHECK_THAT(loaded(unreachable, "postgres"), Contains("libmlgo_postgres.so") && Contains("libpq.so"));

  // libmlgo_core.so copied alone: the backend is looked for beside it.
  const fs::path build = fs::path(test::mlgoBinary()).parent_path();
  fs::create_directories(scratch / "lib");
  fs::copy_file(build / "libmlgo_core.so", scratch / "lib" / "libmlgo_core.so");
  const test::CommandOutcome missing = test::runMlgoWithEnvironment(
      {cache, "LD_LIBRARY_PATH=" + (scratch / "lib").string(), "MLGO_DATA_DIR=" + (build / "mlgo-data").string()},
      // Another store: a build warns once per store and session.
      {"cc", "--store", unreachable + "-2", "clang-19", "-Oz", "-c", source, "-o", (scratch / "missing.o").string()});
  INFO(missing.err);
  CHECK(missing.exitCode == 0);
  CHECK_THAT(missing.err, Contains("libmlgo_postgres.so") && Contains("as clang would"));
  REQUIRE(test::runProgram("/usr/bin/clang-19", {"-Oz", "-c", source, "-o", (scratch / "clang.o").string()}).exitCode ==
          0);
  CHECK(readFile(scratch / "missing.o") == readFile(scratch / "clang.o"));
}
