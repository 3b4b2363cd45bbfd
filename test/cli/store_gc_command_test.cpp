// mlgo store-gc and mlgo cc --store-max-size on stores real builds wrote.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "mlgo/store/build_store.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// `mlgo cc OPTIONS clang-19 ARGS` in `directory`.
test::CommandOutcome cc(const fs::path &directory, const std::vector<std::string> &options,
                        const std::vector<std::string> &args) {
  std::vector<std::string> command{test::mlgoBinary(), "cc"};
  command.insert(command.end(), options.begin(), options.end());
  command.push_back("clang-19");
  command.insert(command.end(), args.begin(), args.end());
  return test::runIn(directory, command);
}

/// Every unit's last use set to `used` (Unix milliseconds): a store as weeks
/// of builds leave it.
void ageUnits(const fs::path &store, int64_t used) {
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open(store.c_str(), &db) == SQLITE_OK);
  const std::string sql = "UPDATE units SET used = " + std::to_string(used);
  CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

json storeGc(const std::vector<std::string> &args) {
  std::vector<std::string> command{"store-gc", "--json"};
  command.insert(command.end(), args.begin(), args.end());
  const test::CommandOutcome done = test::runMlgo(command);
  INFO(done.err);
  REQUIRE(done.exitCode == 0);
  return json::parse(done.out);
}

}  // namespace

TEST_CASE("mlgo store-gc: an edited file's earlier version goes first, a plan changes nothing, and bad sizes are refused",
          "[cli][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path store = scratch / "units.db";
  const std::vector<std::string> options{"--store", store.string(), "--explore", "1"};
  writeFileAtomically(scratch / "a.c", "int twice(int x) { return 2 * x; }\n");
  writeFileAtomically(scratch / "b.c", "int thrice(int x) { return 3 * x; }\n");
  for (const std::string unit : {"a", "b"})
    REQUIRE(cc(scratch.path(), options, {"-Oz", "-c", unit + ".c", "-o", unit + ".o"}).exitCode == 0);
  writeFileAtomically(scratch / "a.c", "int twice(int x) { return x + x; }\nint four(int x) { return 4 * x; }\n");
  REQUIRE(cc(scratch.path(), options, {"-Oz", "-c", "a.c", "-o", "a.o"}).exitCode == 0);
  const std::string before = readFile(store);
  const test::CommandOutcome info = test::runMlgo({"store-info", "--store", store.string(), "--json"});
  REQUIRE(info.exitCode == 0);
  CHECK(json::parse(info.out)["earlier_versions"] == 1);

  const json plan = storeGc({"--store", store.string(), "--max-size", "1", "--dry-run"});
  CHECK(plan["dry_run"] == true);
  REQUIRE(plan["removed_modules"].size() == 3);
  CHECK(plan["removed_modules"][0] == "a.o");  // the earlier version
  CHECK(readFile(store) == before);

  const uint64_t bytes = plan["bytes_before"];
  const json done = storeGc({"--store", store.string(), "--max-size", std::to_string(bytes - 1)});
  CHECK(done["removed_modules"] == json::array({"a.o"}));
  CHECK(done["bytes_after"].get<uint64_t>() <= bytes);  // a page of a small store may hold more than the unit
  const auto opened = store::BuildStore::openExisting(store);
  CHECK(opened->units().size() == 2);
  CHECK(opened->integrity() == "ok");
  // The current a.o is still a hit.
  const test::CommandOutcome rebuilt = cc(scratch.path(), {"--store", store.string(), "--log", (scratch / "log").string()},
                                          {"-Oz", "-c", "a.c", "-o", "a.o"});
  REQUIRE(rebuilt.exitCode == 0);
  CHECK_THAT(readFile(scratch / "log"), Contains("\"store\":\"hit\""));

  const test::CommandOutcome badSize = test::runMlgo({"store-gc", "--store", store.string(), "--max-size", "12Q"});
  CHECK(badSize.exitCode == 2);
  CHECK_THAT(badSize.err, Contains("--max-size") && Contains("\"12Q\""));
  const test::CommandOutcome missing =
      test::runMlgo({"store-gc", "--store", (scratch / "none.db").string(), "--max-size", "1M"});
  CHECK(missing.exitCode == 3);
  CHECK_THAT(missing.err, Contains("none.db"));
  CHECK_FALSE(fs::exists(scratch / "none.db"));
}

TEST_CASE("mlgo cc --store-max-size: a link cleans the store up to its bound, and keeps what builds use now",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path store = scratch / "units.db";
  writeFileAtomically(scratch / "old.c", "int old(int x) { return x * 7; }\n");
  writeFileAtomically(scratch / "main.c", "int main(void) { return 0; }\n");
  REQUIRE(cc(scratch.path(), {"--store", store.string()}, {"-Oz", "-c", "old.c", "-o", "old.o"}).exitCode == 0);
  ageUnits(store, 1000);  // old.o was last built long ago
  const std::vector<std::string> bounded{"--store", store.string(), "--store-max-size", "1"};
  REQUIRE(cc(scratch.path(), bounded, {"-Oz", "-c", "main.c", "-o", "main.o"}).exitCode == 0);
  CHECK(store::BuildStore::openExisting(store)->units().size() == 2);  // a compile cleans nothing up
  const test::CommandOutcome linked = cc(scratch.path(), bounded, {"main.o", "-o", "program"});
  INFO(linked.err);
  REQUIRE(linked.exitCode == 0);
  const std::vector<store::StoredUnit> left = store::BuildStore::openExisting(store)->units();
  REQUIRE(left.size() == 1);
  CHECK(left[0].module == "main.o");
  CHECK(test::runIn(scratch.path(), {(scratch / "program").string()}).exitCode == 0);

  const test::CommandOutcome badSize = test::runIn(
      scratch.path(), {"env", "MLGO_CC_STORE_MAX_SIZE=lots", test::mlgoBinary(), "cc", "--store", store.string(), "clang-19",
                "-Oz", "-c", "main.c", "-o", "again.o"});
  CHECK(badSize.exitCode == 2);
  CHECK_THAT(badSize.err, Contains("MLGO_CC_STORE_MAX_SIZE") && Contains("\"lots\""));
  CHECK_FALSE(fs::exists(scratch / "again.o"));
}
