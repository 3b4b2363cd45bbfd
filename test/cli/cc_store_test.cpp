// mlgo cc --record, --store and --explore on a make project written for the
// tests (test/data/launcher/store), built by real clang-19 under -j.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "mlgo/autotune/pass_pool.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/store/build_store.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"
#include "cli/store_project.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using test::gatePrograms;
using test::storeProject;
const std::set<std::string> &kUnits = test::kStoreUnits;

test::CommandOutcome make(const fs::path &project, const std::optional<std::vector<std::string>> &options,
                          int jobs = 2, const std::vector<std::string> &targets = {}, const std::string &flags = "-Oz") {
  return test::makeStoreProject(project, options, jobs, targets, flags);
}

void clean(const fs::path &project) { REQUIRE(test::runIn(project, {"make", "-s", "clean"}).exitCode == 0); }

std::vector<std::string> storeOptions(const fs::path &store, const fs::path &log, size_t explore = 0) {
  return test::storeOptions(store.string(), log, explore);
}

json storeInfo(const fs::path &store) {
  const test::CommandOutcome info = test::runMlgo({"store-info", "--store", store.string(), "--json", "--units"});
  INFO(info.err);
  REQUIRE(info.exitCode == 0);
  return json::parse(info.out);
}

/// Everything a store holds, in one comparable value.
json storeContents(const fs::path &store) {
  const auto opened = store::BuildStore::openExisting(store);
  json contents{{"units", json::array()}, {"verdicts", json::object()}};
  for (const store::StoredUnit &unit : opened->units()) {
    json trials = json::object();
    for (const auto &[pipeline, trial] : unit.trials)
      trials[pipeline] = {trial.compiled, trial.sizes.text, trial.sizes.rodata, trial.sizes.data, trial.sizes.bss,
                          trial.irInstructions};
    contents["units"].push_back({{"key", unit.key},
                                 {"module", unit.module},
                                 {"cxx", unit.cxx},
                                 {"choice", unit.choice ? json(*unit.choice) : json()},
                                 {"trials", trials}});
  }
  for (const auto &[pipeline, verdict] : opened->verdicts())
    contents["verdicts"][pipeline] = {verdict.passed, verdict.cxxLinkOnly, verdict.failure};
  return contents;
}

std::vector<json> logLines(const fs::path &log) {
  std::vector<json> lines;
  if (!fs::exists(log)) return lines;
  forEachLine(readFile(log), [&](size_t, std::string_view line) {
    if (!line.empty()) lines.push_back(json::parse(line));
  });
  return lines;
}

std::string withoutEmbedFlag(std::string commandLine) {
  const std::string flag = std::string("-fembed-bitcode=all") + '\0';
  if (const size_t at = commandLine.find(flag); at != std::string::npos) commandLine.erase(at, flag.size());
  return commandLine;
}

}  // namespace

TEST_CASE("mlgo cc --record: the corpus equals extract-ir's of an embedded-bitcode build, less the embedding flag",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const test::CommandOutcome embedded = make(project, std::nullopt, 2, {}, "-Oz -Xclang -fembed-bitcode=all");
  INFO(embedded.err);
  REQUIRE(embedded.exitCode == 0);
  std::string objects;
  for (const std::string &unit : kUnits) objects += unit + "\n";
  writeFileAtomically(project / "objects.txt", objects);
  REQUIRE(test::runMlgo({"extract-ir", "--input", (project / "objects.txt").string(), "--input-type", "objects",
                         "--output-dir", (scratch / "extracted").string()})
              .exitCode == 0);
  clean(project);
  const test::CommandOutcome recorded = make(project, std::vector<std::string>{"--record", (scratch / "recorded").string()}, 8);
  INFO(recorded.err);
  REQUIRE(recorded.exitCode == 0);

  const Corpus extracted = Corpus::load(scratch / "extracted");
  const Corpus corpus = Corpus::load(scratch / "recorded");
  std::set<std::string> names;
  for (const CorpusModule &module : corpus.modules) names.insert(module.name);
  CHECK(names == kUnits);
  REQUIRE(extracted.modules.size() == kUnits.size());
  for (const CorpusModule &module : extracted.modules) {
    CAPTURE(module.name);
    CHECK(readFile(scratch / "recorded" / (module.name + ".bc")) == readFile(module.bitcodePath));
    // The embedded build's cc1 also had -fembed-bitcode=all, which the
    // driver ignores when it compiles a corpus module.
    const std::string extractedCommand = readFile(scratch / "extracted" / (module.name + ".cmd"));
    CHECK(extractedCommand != withoutEmbedFlag(extractedCommand));
    CHECK(readFile(scratch / "recorded" / (module.name + ".cmd")) == withoutEmbedFlag(extractedCommand));
  }
  // A rebuild after a change replaces the unit's module.
  writeFileAtomically(project / "src" / "tables.c",
                      readFile(project / "src" / "tables.c") + "\nint recorded_again(int x) { return x * 7; }\n");
  const std::string before = readFile(scratch / "recorded" / "tables.o.bc");
  REQUIRE(make(project, std::vector<std::string>{"--record", (scratch / "recorded").string()}).exitCode == 0);
  CHECK(readFile(scratch / "recorded" / "tables.o.bc") != before);
  CHECK(Corpus::load(scratch / "recorded").modules.size() == kUnits.size());
}

TEST_CASE("mlgo cc --store --explore: a -j8 build leaves a consistent store, every unit in it once",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  size_t trialsBefore = 0;
  for (int build = 0; build < 2; ++build) {
    clean(project);
    const test::CommandOutcome built = make(project, storeOptions(store, scratch / "log", 3), 8);
    INFO(built.err);
    REQUIRE(built.exitCode == 0);
    const json info = storeInfo(store);
    CHECK(info["integrity"] == "ok");
    CHECK(info["units"] == kUnits.size());
    std::set<std::string> modules;
    for (const json &unit : info["unit_list"]) modules.insert(unit["module"].get<std::string>());
    CHECK(modules == kUnits);
    // The first build tried 3 lists for every unit, new to the store, and
    // its recorded level; the second shared its trials among the units.
    if (build == 0) CHECK(info["trials"].get<size_t>() == kUnits.size() * 4);
    else CHECK(info["trials"].get<size_t>() > trialsBefore);
    trialsBefore = info["trials"].get<size_t>();
  }
  const std::vector<json> lines = logLines(scratch / "log");
  REQUIRE(lines.size() == 2 * kUnits.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i < kUnits.size()) CHECK(lines[i]["store"] == "new");
    else CHECK((lines[i]["store"] == "explored" || lines[i]["store"] == "hit"));
  }
}

/// A C unit much larger than the store project's others: 40 functions of
/// loops and switches, where search has room.
std::string largeSource() {
  std::string source = "#include <string.h>\n";
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    source += "int large_" + n + "(const char *s, int n) {\n  int acc = " + n +
              ";\n  for (int k = 0; k < n; ++k) {\n    switch ((s[k] + k) % 5) {\n"
              "      case 0: acc += k * " + n + "; break;\n      case 1: acc ^= s[k] << (k % 7); break;\n"
              "      case 2: acc -= (int)strlen(s + k) * " + std::to_string(i % 3 + 1) + "; break;\n"
              "      case 3: acc = acc * 31 + s[k]; break;\n      default: acc >>= 1;\n    }\n  }\n"
              "  return acc + (n > " + n + " ? large_" + std::to_string(i > 0 ? i - 1 : 0) + "(s + 1, n - 1) : 0);\n}\n";
  }
  return source;
}

TEST_CASE("mlgo cc --store --explore: a build spends its trials where the bytes are, and its choices keep the build's "
          "cost bound",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  writeFileAtomically(project / "src" / "large.c", largeSource());
  const std::vector<std::string> targets{"large.o", "helpers.o", "recursion.o", "sub/list.o"};
  const fs::path store = scratch / "units.db";
  auto build = [&](size_t explore, const std::string &log) {
    REQUIRE(test::runIn(project, {"rm", "-f", "large.o", "helpers.o", "recursion.o", "sub/list.o"}).exitCode == 0);
    const test::CommandOutcome built = make(project, storeOptions(store, scratch / log, explore), 1, targets);
    INFO(built.err);
    REQUIRE(built.exitCode == 0);
    std::map<std::string, json> lines;
    for (const json &line : logLines(scratch / log)) lines[line["module"]] = line;
    REQUIRE(lines.size() == targets.size());
    return lines;
  };
  // New to the store: each unit tries N lists.
  for (const auto &[module, line] : build(2, "first.log")) CHECK(line["new_trials"] == 3);
  // The next build's exploration, 2 plain builds' worth of compile cost, all
  // goes to the large unit (most of the build's cost, and of its bytes).
  const std::map<std::string, json> second = build(2, "second.log");
  size_t others = 0;
  for (const auto &[module, line] : second)
    if (module != "large.o") others += line["new_trials"].get<size_t>();
  CHECK(second.at("large.o")["new_trials"].get<size_t>() >= 2);
  CHECK(others == 0);
  CHECK(second.at("helpers.o")["store"] == "hit");

  // The hit rebuild's estimated cost is within the build's bound, and it compiles the store's choices.
  const std::map<std::string, json> hits = build(0, "hit.log");
  const auto opened = store::BuildStore::openExisting(store);
  const std::vector<store::StoredUnit> units = opened->units();
  double plain = 0, chosen = 0;
  for (const store::StoredUnit *unit : store::currentUnits(units)) {
    CAPTURE(unit->module);
    REQUIRE(unit->choice);
    plain += double(unit->trials.at("").work);
    chosen += double(unit->trials.at(*unit->choice).work);
    CHECK(hits.at(unit->module)["applied"].value("pass_list", "") == *unit->choice);
    CHECK(hits.at(unit->module)["store"] == "hit");
  }
  CHECK(chosen <= store::kDefaultCostBound * plain);
}

TEST_CASE("mlgo cc --store: a build killed with SIGKILL loses no committed row, and the next build completes",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  REQUIRE(make(project, storeOptions(store, scratch / "log", 2), 2).exitCode == 0);
  const json committed = storeContents(store);
  clean(project);
  // The whole build, make and every compile, killed a moment after it began.
  std::string cc = test::mlgoBinary() + " cc";
  for (const std::string &option : storeOptions(store, scratch / "log", 40)) cc += " " + option;
  const test::CommandOutcome killed = test::runIn(
      project, {"sh", "-c",
                "setsid make -s -j8 SRC=" + (project / "src").string() + " 'CC=" + cc +
                    " clang-19' & build=$!; sleep 1.5; kill -KILL -- -$build; wait $build; exit 0"});
  REQUIRE(killed.exitCode == 0);
  CHECK(storeInfo(store)["integrity"] == "ok");
  const json after = storeContents(store);
  std::map<std::string, json> unitsAfter;
  for (const json &unit : after["units"]) unitsAfter[unit["key"]] = unit;
  for (const json &unit : committed["units"]) {
    CAPTURE(unit["module"]);
    REQUIRE(unitsAfter.count(unit["key"]));
    for (const auto &[pipeline, trial] : unit["trials"].items()) CHECK(unitsAfter[unit["key"]]["trials"][pipeline] == trial);
  }
  for (const auto &[pipeline, verdict] : committed["verdicts"].items()) CHECK(after["verdicts"][pipeline] == verdict);
  clean(project);
  const test::CommandOutcome rebuilt = make(project, storeOptions(store, scratch / "log", 2), 2);
  INFO(rebuilt.err);
  CHECK(rebuilt.exitCode == 0);
  CHECK(storeInfo(store)["integrity"] == "ok");
}

TEST_CASE("mlgo cc --store: a store of another search space is ignored, and one compile says so",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  REQUIRE(make(project, std::nullopt, 2).exitCode == 0);
  std::map<std::string, std::string> plain;
  for (const std::string &unit : kUnits) plain[unit] = readFile(project / unit);
  clean(project);
  const fs::path store = scratch / "units.db";
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  store::BuildStore(store, {store::storeIdentity(autotune::searchSpaceHash(space)).llvm, "another search space", kCostModelVersion});

  const test::CommandOutcome built = make(project, storeOptions(store, scratch / "log", 2), 1);
  INFO(built.err);
  REQUIRE(built.exitCode == 0);
  size_t warnings = 0;
  for (size_t at = built.err.find("the store is ignored"); at != std::string::npos;
       at = built.err.find("the store is ignored", at + 1))
    ++warnings;
  CHECK(warnings == 1);
  CHECK_THAT(built.err, Contains(store.string()));
  for (const std::string &unit : kUnits) CHECK(readFile(project / unit) == plain.at(unit));
  CHECK(logLines(scratch / "log").empty());  // nothing was applied: clang compiled every unit
  const json info = storeInfo(store);
  CHECK(info["units"] == 0);
  CHECK_FALSE(info["usable"].get<bool>());
  CHECK(info["foreign_writers"].size() == 1);
}

TEST_CASE("mlgo cc --store: a touched file is the only unit the next build compiles, with its share of the "
          "exploration, and a changed one is new",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  const test::CommandOutcome first = make(project, storeOptions(store, scratch / "first.log", 2), 2);
  INFO(first.err);
  REQUIRE(first.exitCode == 0);
  const json before = storeInfo(store);

  // The unit's share of the build's exploration, from what the store knows.
  size_t share = 0;
  {
    const auto opened = store::BuildStore::openExisting(store);
    const std::vector<store::StoredUnit> units = opened->units();
    for (const auto &[key, trials] : store::explorationShares(store::currentUnits(units), 2, 500))
      if (opened->unit(key)->module == "tables.o") share = trials;
  }
  fs::last_write_time(project / "src" / "tables.c", fs::file_time_type::clock::now() + std::chrono::seconds(5));
  REQUIRE(make(project, storeOptions(store, scratch / "touched.log", 2), 2).exitCode == 0);
  const std::vector<json> touched = logLines(scratch / "touched.log");
  REQUIRE(touched.size() == 1);
  CHECK(touched[0]["module"] == "tables.o");
  CHECK(touched[0]["store"] == (share > 0 ? "explored" : "hit"));
  CHECK(touched[0]["new_trials"] == share);
  const json after = storeInfo(store);
  CHECK(after["trials"] == before["trials"].get<size_t>() + share);

  // Changed: a new key, so a new unit; the unchanged ones compile once from the store.
  writeFileAtomically(project / "src" / "tables.c",
                      readFile(project / "src" / "tables.c") + "\nint changed_unit(int x) { return x * 3 + 1; }\n");
  clean(project);
  REQUIRE(make(project, storeOptions(store, scratch / "changed.log"), 2).exitCode == 0);
  for (const json &line : logLines(scratch / "changed.log")) {
    CAPTURE(line["module"]);
    CHECK(line["store"] == (line["module"] == "tables.o" ? "new" : "hit"));
  }
  CHECK(storeInfo(store)["units"] == kUnits.size() + 1);
}

TEST_CASE("mlgo cc --store: a store hit's object has the sizes mlgo eval --pass-lists gives the chosen list",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  for (int build = 0; build < 2; ++build) {
    clean(project);
    std::vector<std::string> options = storeOptions(store, scratch / "explore.log", 6);
    options.push_back("--predict");
    REQUIRE(make(project, options, 2).exitCode == 0);
  }
  clean(project);
  std::vector<std::string> options = storeOptions(store, scratch / "hit.log");
  options.insert(options.end(), {"--record", (scratch / "corpus").string()});
  REQUIRE(make(project, options, 2).exitCode == 0);

  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  json best{{"format", "mlgo-autotune"}, {"modules", json::array()}};
  std::map<std::string, json> hits;
  size_t listed = 0;
  for (const json &line : logLines(scratch / "hit.log")) {
    CHECK(line["store"] == "hit");
    const std::string module = line["module"];
    hits[module] = line;
    const std::string pipeline = line["applied"].value("pass_list", "");
    if (pipeline.empty()) continue;
    json passes = json::array();
    for (int pass : space.listOfPipeline(pipeline, "hit.log", module)) passes.push_back(space.passes()[pass].element);
    best["modules"].push_back({{"name", module}, {"passes", passes}, {"pipeline", pipeline}});
    ++listed;
  }
  REQUIRE(hits.size() == kUnits.size());
  REQUIRE(listed >= 2);  // units the exploration made smaller, gated
  writeFileAtomically(scratch / "best.json", best.dump());
  const test::CommandOutcome evaluated =
      test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--pass-lists",
                     (scratch / "best.json").string(), "--json", (scratch / "eval.json").string()});
  INFO(evaluated.err);
  REQUIRE(evaluated.exitCode == 0);
  for (const json &module : readJsonFile(scratch / "eval.json")["modules"]) {
    CAPTURE(module["name"]);
    const json &hit = hits.at(module["name"]);
    CHECK(module["candidate"]["text"] == hit["text"]);
    CHECK(module["candidate"]["text+data"] == hit["text_data"]);
  }

  // The store is a pool: sweep-passes takes its gated lists, winners first.
  const std::vector<std::string> gated = store::BuildStore::openExisting(store)->gatedPipelines();
  REQUIRE(gated.size() >= 2);
  const test::CommandOutcome swept =
      test::runMlgo({"sweep-passes", "--corpus", (scratch / "corpus").string(), "--lists", store.string(), "--output",
                     (scratch / "sweep").string(), "--gate-programs", gatePrograms(), "--threads", "2"});
  INFO(swept.err);
  REQUIRE(swept.exitCode == 0);
  CHECK_THAT(swept.out, Contains("swept " + std::to_string(gated.size()) + " lists over 8 of 8 modules"));
}

TEST_CASE("mlgo store-merge: two builds' stores joined equal one store both builds wrote",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const std::vector<std::string> first{"helpers.o", "big_callee.o", "tables.o", "recursion.o"};
  const std::vector<std::string> second{"strings.o", "labels.o", "always_inline.o", "sub/list.o"};
  for (const auto &[store, targets] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"first.db", first}, {"both.db", first}, {"second.db", second}, {"both.db", second}}) {
    clean(project);
    const test::CommandOutcome built = make(project, storeOptions(scratch / store, scratch / "log", 3), 2, targets);
    INFO(built.err);
    REQUIRE(built.exitCode == 0);
  }
  const test::CommandOutcome merged = test::runMlgo({"store-merge", "--output", (scratch / "merged.db").string(),
                                                     (scratch / "first.db").string(), (scratch / "second.db").string()});
  INFO(merged.err);
  REQUIRE(merged.exitCode == 0);
  const json both = storeContents(scratch / "both.db");
  CHECK(both["units"].size() == kUnits.size());
  CHECK(storeContents(scratch / "merged.db") == both);
  CHECK(storeInfo(scratch / "merged.db")["integrity"] == "ok");

  // A store of another search space is not merged into it.
  store::BuildStore(scratch / "other.db", {"19.1.7", "another search space", kCostModelVersion});
  const test::CommandOutcome refused = test::runMlgo(
      {"store-merge", "--output", (scratch / "merged.db").string(), (scratch / "other.db").string()});
  CHECK(refused.exitCode == 3);
  CHECK_THAT(refused.err, Contains("other.db"));
  CHECK(storeContents(scratch / "merged.db") == both);
}

TEST_CASE("mlgo cc --explore: B/N builds try what mlgo autotune --budget B tries on the unit's module",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  constexpr size_t kBudget = 20, kPerBuild = 5;
  for (size_t build = 0; build * kPerBuild < kBudget; ++build) {
    clean(project);
    std::vector<std::string> options = storeOptions(store, scratch / "log", kPerBuild);
    options.insert(options.end(),
                   {"--record", (scratch / "corpus").string(), "--explore-budget", std::to_string(kBudget)});
    REQUIRE(make(project, options, 1, {"big_callee.o"}).exitCode == 0);
  }
  const test::CommandOutcome tuned =
      test::runMlgo({"autotune", "--corpus", (scratch / "corpus").string(), "--output", (scratch / "tune").string(),
                     "--budget", std::to_string(kBudget), "--no-gate", "--threads", "1"});
  INFO(tuned.err);
  REQUIRE(tuned.exitCode == 0);
  const json tuning = readJsonFile(scratch / "tune" / "best.json")["modules"].at(0);

  const auto opened = store::BuildStore::openExisting(store);
  const std::vector<store::StoredUnit> units = opened->units();
  REQUIRE(units.size() == 1);
  uint64_t smallest = UINT64_MAX;
  for (const auto &[pipeline, trial] : units[0].trials)
    if (trial.compiled) smallest = std::min(smallest, trial.sizes.textPlusData());
  // The same lists: as many, and the same best size.
  CHECK(units[0].trials.size() == tuning["compilations"].get<size_t>());
  CHECK(smallest == tuning["best"]["text+data"].get<uint64_t>());
  // The search has spent its budget: the next build compiles the unit once.
  clean(project);
  std::vector<std::string> options = storeOptions(store, scratch / "decided.log", kPerBuild);
  options.insert(options.end(), {"--explore-budget", std::to_string(kBudget)});
  REQUIRE(make(project, options, 1, {"big_callee.o"}).exitCode == 0);
  const std::vector<json> decided = logLines(scratch / "decided.log");
  REQUIRE(decided.size() == 1);
  CHECK(decided[0]["store"] == "decided");
  CHECK(decided[0]["new_trials"] == 0);
}

TEST_CASE("mlgo cc --store, --explore: bad settings are refused before anything is written", "[cli][launcher][store]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "unit.c", "int unit(int x) { return x + 1; }\n");
  const std::string object = (scratch / "unit.o").string(), source = (scratch / "unit.c").string();
  auto compile = [&](const std::vector<std::string> &environment, const std::vector<std::string> &options) {
    std::vector<std::string> command{"cc"};
    command.insert(command.end(), options.begin(), options.end());
    command.insert(command.end(), {"clang-19", "-Oz", "-c", source, "-o", object});
    return test::runMlgoWithEnvironment(environment, command);
  };
  const fs::path store = scratch / "units.db";

  const test::CommandOutcome noStore = compile({}, {"--explore", "3"});
  CHECK(noStore.exitCode == 2);
  CHECK_THAT(noStore.err, Contains("--explore needs --store"));
  const test::CommandOutcome notANumber = compile({"MLGO_CC_STORE=" + store.string(), "MLGO_CC_EXPLORE=abc"}, {});
  CHECK(notANumber.exitCode == 2);
  CHECK_THAT(notANumber.err, Contains("MLGO_CC_EXPLORE") && Contains("\"abc\""));
  const test::CommandOutcome negative = compile({"MLGO_CC_STORE=" + store.string()}, {"--explore", "-1"});
  CHECK(negative.exitCode == 2);
  const test::CommandOutcome noDirectory = compile({"MLGO_CC_STORE=" + (scratch / "missing" / "units.db").string()}, {});
  CHECK(noDirectory.exitCode == 3);
  CHECK_THAT(noDirectory.err, Contains("missing/units.db") && Contains("its directory does not exist"));
  writeFileAtomically(store, "plain text, not a database of any kind, long enough to be read as one\n");
  const test::CommandOutcome notAStore = compile({"MLGO_CC_STORE=" + store.string()}, {});
  CHECK(notAStore.exitCode == 3);
  CHECK_THAT(notAStore.err, Contains("units.db"));
  // --record on a file or a device, as an unusable --log: exit 2, in mlgo's words.
  writeFileAtomically(scratch / "corpus-file", "a file\n");
  for (const std::string &record : {(scratch / "corpus-file").string(), std::string("/dev/null")}) {
    INFO(record);
    const test::CommandOutcome refused = compile({}, {"--record", record});
    CHECK(refused.exitCode == 2);
    CHECK_THAT(refused.err, Contains("--record " + record + ": ") && Contains("not a directory"));
    CHECK_THAT(refused.err, !Contains("filesystem error"));
  }
  CHECK(readFile(scratch / "corpus-file") == "a file\n");
  // Nothing was compiled, and the file given as a store is as it was.
  CHECK_FALSE(fs::exists(object));
  CHECK(readFile(store) == "plain text, not a database of any kind, long enough to be read as one\n");
}

TEST_CASE("mlgo cc --store at a link: every build's program is at most the plain build's, and the links teach the store",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path dedup = test::testData() / "builds" / "dedup";
  fs::copy(dedup, scratch / "plain");
  fs::copy(dedup, scratch / "store");
  REQUIRE(test::runIn(scratch / "plain", {"make", "-s", "CXX=clang++-19", "program"}).exitCode == 0);
  SectionSizes plain;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(scratch / "plain" / "program"), plain, error));
  const fs::path store = scratch / "units.db";
  std::string cxx = test::mlgoBinary() + " cc";
  for (const std::string &option : storeOptions(store, scratch / "log", 3)) cxx += " " + option;
  cxx += " clang++-19";
  for (int build = 0; build < 2; ++build) {
    REQUIRE(test::runIn(scratch / "store", {"make", "-s", "clean-objects"}).exitCode == 0);
    const test::CommandOutcome built = test::runIn(scratch / "store", {"make", "-s", "CXX=" + cxx, "check"});
    INFO(built.out << built.err);
    REQUIRE(built.exitCode == 0);
    SectionSizes linked;
    REQUIRE(measureObjectSizes(readFile(scratch / "store" / "program"), linked, error));
    CHECK(linked.textPlusData() <= plain.textPlusData());
  }
  std::vector<json> links;
  for (const json &line : logLines(scratch / "log"))
    if (line.contains("link")) links.push_back(line);
  REQUIRE(links.size() == 2);
  for (const json &link : links) {
    CHECK(link["link"] == "program");
    CHECK_THAT(link["store_link"].get<std::string>(), Catch::Matchers::Matches("plain-inputs|kept|plain|verified"));
  }
  // What the linker kept of the units is in the store now, and what shipped leads store-info.
  const json info = storeInfo(store);
  CHECK(info["kept_trials"].get<size_t>() >= 4);
  REQUIRE(info["linked"]["files"].size() == 1);
  const json &file = info["linked"]["files"][0];
  CHECK(file["output"] == (scratch / "store" / "program").string());
  SectionSizes shipped;
  REQUIRE(measureObjectSizes(readFile(scratch / "store" / "program"), shipped, error));
  // The last link was verified (its rebuild linked once): the row is the build before's, the same bytes.
  CHECK(file["shipped_text_data"] == shipped.textPlusData());
  CHECK(file["plain_text_data"] == plain.textPlusData());
  CHECK(info["linked"]["removed_bytes"] == int64_t(plain.textPlusData()) - int64_t(shipped.textPlusData()));
  const test::CommandOutcome text = test::runMlgo({"store-info", "--store", store.string()});
  CHECK_THAT(text.out, Catch::Matchers::StartsWith("linked .text+.data") && Contains("program") &&
                           Contains("the choices remove"));
}

namespace {

/// Makes `path` unwritable for the test's life: immutable where the test runs
/// as root (chattr +i binds root too), read-only otherwise.
class Unwritable {
 public:
  explicit Unwritable(fs::path path) : path_(std::move(path)) {
    immutable_ = test::runProgram("/usr/bin/chattr", {"+i", path_.string()}).exitCode == 0;
    if (!immutable_) fs::permissions(path_, fs::perms::owner_write, fs::perm_options::remove);
  }
  ~Unwritable() {
    if (immutable_) test::runProgram("/usr/bin/chattr", {"-i", path_.string()});
    else fs::permissions(path_, fs::perms::owner_write, fs::perm_options::add);
  }

 private:
  fs::path path_;
  bool immutable_ = false;
};

std::string hashOf(const fs::path &file) { return CompileMemo::hash(readFile(file)); }

}  // namespace

TEST_CASE("mlgo cc --store: a store through a link works, stores only read are left byte for byte, unusable ones "
          "stop the build before it compiles, named",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "unit.c", "int unit(int x) { return x * 3 + 1; }\n");
  const fs::path object = scratch / "unit.o";
  auto compile = [&](const fs::path &store) {
    fs::remove(object);
    return test::runMlgo({"cc", "--store", store.string(), "--log", (scratch / "log").string(), "clang-19", "-Oz",
                          "-c", (scratch / "unit.c").string(), "-o", object.string()});
  };
  const fs::path store = scratch / "units.db";
  REQUIRE(compile(store).exitCode == 0);

  SECTION("a link to the store, and a link to its directory, are the store") {
    fs::create_symlink(store, scratch / "link.db");
    fs::create_symlink(scratch.path(), scratch / "here");
    for (const fs::path &linked : {scratch / "link.db", scratch / "here" / "link.db"}) {
      INFO(linked);
      const test::CommandOutcome built = compile(linked);
      INFO(built.err);
      CHECK(built.exitCode == 0);
      CHECK(logLines(scratch / "log").back()["store"] != "new");  // the unit was found
    }
    CHECK(fs::is_symlink(fs::symlink_status(scratch / "link.db")));
    CHECK(storeInfo(scratch / "link.db")["units"] == 1);
    // Merged through a link: the file it points to is written, the link stays.
    fs::create_symlink("merged.db", scratch / "merged-link.db");
    const test::CommandOutcome merged =
        test::runMlgo({"store-merge", "--output", (scratch / "merged-link.db").string(), store.string()});
    INFO(merged.err);
    CHECK(merged.exitCode == 0);
    CHECK(fs::is_symlink(fs::symlink_status(scratch / "merged-link.db")));
    CHECK(storeContents(scratch / "merged.db") == storeContents(store));
  }

  SECTION("store-info and store-merge leave their inputs as they were") {
    const std::string before = hashOf(store);
    writeFileAtomically(scratch / "z.db", "");
    CHECK(test::runMlgo({"store-info", "--store", store.string()}).exitCode == 0);
    const test::CommandOutcome empty = test::runMlgo({"store-info", "--store", (scratch / "z.db").string()});
    CHECK(empty.exitCode == 3);
    CHECK_THAT(empty.err, Contains("z.db") && Contains("not a store of mlgo's (an empty file)"));
    const test::CommandOutcome refused = test::runMlgo(
        {"store-merge", "--output", (scratch / "m.db").string(), store.string(), (scratch / "z.db").string()});
    CHECK(refused.exitCode == 3);
    CHECK_THAT(refused.err, Contains("z.db") && Contains("not a store of mlgo's"));
    CHECK_FALSE(fs::exists(scratch / "m.db"));
    CHECK(fs::file_size(scratch / "z.db") == 0);
    CHECK(test::runMlgo({"store-merge", "--output", (scratch / "m.db").string(), store.string()}).exitCode == 0);
    CHECK(hashOf(store) == before);
  }

  SECTION("a row whose list is not of the search space is never applied: the unit builds plainly, with a warning") {
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(store.c_str(), &db) == SQLITE_OK);
    std::string planted;
    for (int level = 0; level < 200000; ++level) planted += "function(";
    planted += "sroa" + std::string(200000, ')');
    sqlite3_stmt *update = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "UPDATE units SET choice = ?", -1, &update, nullptr) == SQLITE_OK);
    sqlite3_bind_text(update, 1, planted.data(), int(planted.size()), SQLITE_TRANSIENT);
    CHECK(sqlite3_step(update) == SQLITE_DONE);
    sqlite3_finalize(update);
    sqlite3_close(db);
    const test::CommandOutcome built = compile(store);
    CHECK(built.exitCode == 0);
    CHECK_THAT(built.err, Contains(store.string() + ": unit ") && Contains("is not a list of the search space") &&
                              Contains("compiled plainly"));
    CHECK(built.err.size() < 2000);
    REQUIRE(test::runProgram("/usr/bin/clang-19", {"-Oz", "-c", (scratch / "unit.c").string(), "-o",
                                                   (scratch / "plain.o").string()})
                .exitCode == 0);
    CHECK(readFile(object) == readFile(scratch / "plain.o"));
  }

  SECTION("a store or a directory that cannot be written: exit 3 before anything compiles, saying why") {
    {
      const Unwritable file(store);
      const test::CommandOutcome refused = compile(store);
      CHECK(refused.exitCode == 3);
      CHECK_THAT(refused.err, Contains(store.string() + ": cannot be written"));
      CHECK_FALSE(fs::exists(object));
      CHECK(storeInfo(store)["units"] == 1);  // reading needs no write
    }
    fs::create_directories(scratch / "locked");
    const Unwritable directory(scratch / "locked");
    const test::CommandOutcome refused = compile(scratch / "locked" / "new.db");
    CHECK(refused.exitCode == 3);
    CHECK_THAT(refused.err, Contains("locked/new.db: its directory") && Contains("cannot be written"));
    CHECK_FALSE(fs::exists(object));
  }
}

TEST_CASE("mlgo cc --store: an edited unit tries its earlier version's choice first", "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  const fs::path project = storeProject(scratch / "project");
  const fs::path store = scratch / "units.db";
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  // The project's most frequent winner W, and what strings.o's earlier version chose, L.
  const std::string winner = space.pipeline({0, 1}), lineage = space.pipeline({2});
  REQUIRE(winner != lineage);
  {
    store::BuildStore written(store, store::storeIdentity(autotune::searchSpaceHash(space)));
    auto decide = [&](const std::string &key, const std::string &module, const std::string &pipeline) {
      store::StoredTrial recorded{"", true, {}, 0, 1000, std::nullopt}, listed{pipeline, true, {}, 0, 1000, std::nullopt};
      recorded.sizes.text = 100;
      listed.sizes.text = 90;
      written.recordTrials(key, module, false, {recorded, listed});
      written.recordVerdict(pipeline, {true, false, ""});
    };
    decide("earlier-strings", "strings.o", lineage);
    decide("other-1", "other1.o", winner);
    decide("other-2", "other2.o", winner);
    REQUIRE(written.winningPipelines().front() == winner);
  }
  const test::CommandOutcome built = make(project, storeOptions(store, scratch / "log", 1), 1, {"strings.o"});
  INFO(built.err);
  REQUIRE(built.exitCode == 0);
  const json line = logLines(scratch / "log").back();
  CHECK(line["store"] == "new");
  const auto opened = store::BuildStore::openExisting(store);
  const std::optional<store::StoredUnit> edited = opened->unit(line["store_unit"]);
  REQUIRE(edited);
  std::set<std::string> tried;
  for (const auto &[pipeline, trial] : edited->trials) tried.insert(pipeline);
  CHECK(tried == std::set<std::string>{"", lineage});
}

TEST_CASE("mlgo cc --store: the same project built in another tree shares every unit, and a hit there is what a "
          "direct compile there with the chosen list gives, byte for byte",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  fs::create_directories(scratch / "elsewhere");
  const fs::path first = storeProject(scratch / "first");
  const fs::path second = storeProject(scratch / "elsewhere" / "second");
  const fs::path store = scratch / "units.db";
  // -g: debug paths name each tree; __FILE__ too where a unit asserts.
  const std::string flags = "-Oz -g";
  for (int build = 0; build < 2; ++build) {
    clean(first);
    std::vector<std::string> options = storeOptions(store, scratch / "first.log", 4);
    options.push_back("--predict");
    REQUIRE(make(first, options, 2, {}, flags).exitCode == 0);
  }
  std::map<std::string, std::string> firstKeys;
  for (const json &line : logLines(scratch / "first.log")) firstKeys[line["module"]] = line["store_unit"];
  REQUIRE(firstKeys.size() == kUnits.size());

  const test::CommandOutcome built = make(second, storeOptions(store, scratch / "second.log"), 2, {}, flags);
  INFO(built.err);
  REQUIRE(built.exitCode == 0);
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  json best{{"format", "mlgo-autotune"}, {"modules", json::array()}};
  std::map<std::string, std::string> hitObjects;
  for (const json &line : logLines(scratch / "second.log")) {
    const std::string module = line["module"];
    CAPTURE(module);
    CHECK(line["store"] == "hit");
    CHECK(line["store_unit"] == firstKeys.at(module));
    hitObjects[module] = readFile(second / module);
    // The object is the second tree's own: its debug information names it, not the first.
    CHECK_THAT(hitObjects[module], Contains((second / "src").string()) && !Contains(first.string()));
    const std::string pipeline = line["applied"].value("pass_list", "");
    if (pipeline.empty()) continue;
    json passes = json::array();
    for (int pass : space.listOfPipeline(pipeline, "second.log", module)) passes.push_back(space.passes()[pass].element);
    best["modules"].push_back({{"name", module}, {"passes", passes}, {"pipeline", pipeline}});
  }
  REQUIRE(hitObjects.size() == kUnits.size());
  REQUIRE(best["modules"].size() >= 1);  // units the first tree's exploration made smaller
  writeFileAtomically(scratch / "best.json", best.dump());
  clean(second);
  REQUIRE(make(second, std::vector<std::string>{"--pass-lists", (scratch / "best.json").string()}, 2, {}, flags)
              .exitCode == 0);
  for (const auto &[module, object] : hitObjects) {
    CAPTURE(module);
    CHECK(readFile(second / module) == object);
  }
}

namespace {

/// The command line of process `pid` (its arguments joined by spaces), ""
/// when it is gone.
std::string commandLineOf(const std::string &pid) {
  std::ifstream file("/proc/" + pid + "/cmdline");
  std::string line((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::replace(line.begin(), line.end(), '\0', ' ');
  return line;
}

std::string parentOf(const std::string &pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string field, state, parent;
  stat >> field >> field >> state >> parent;  // "(comm)" has no space for mlgo
  return parent;
}

/// The process mlgo cc runs its work in: an mlgo cc process with `marker`
/// in its command line whose parent is one too. 0 until there is one.
pid_t mlgoCcChild(const std::string &marker) {
  for (const fs::directory_entry &entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    const std::string line = commandLineOf(pid);
    if (line.find(" cc ") == std::string::npos || line.find(marker) == std::string::npos) continue;
    if (commandLineOf(parentOf(pid)) == line) return pid_t(std::stoi(pid));
  }
  return 0;
}

}  // namespace

TEST_CASE("mlgo cc: a compile whose own process dies by a signal builds as clang would, with a warning",
          "[cli][launcher][store][clang]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "large.c", largeSource());
  const std::string store = (scratch / "crash-units.db").string();
  // Exploring a large unit, with the gate's programs to compile first, keeps
  // mlgo cc at work for seconds: long enough to find its process and kill it.
  const std::vector<std::string> command{test::mlgoBinary(), "cc", "--store", store, "--gate-programs",
                                         gatePrograms(), "--explore", "20", "clang-19", "-Oz", "-c", "large.c",
                                         "-o", "large.o"};
  test::CommandOutcome outcome;
  std::thread compile([&] { outcome = test::runIn(scratch.path(), command); });
  pid_t child = 0;
  for (int attempt = 0; attempt < 2000 && !child; ++attempt) {
    child = mlgoCcChild(store);
    if (!child) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The waiting parent forked before loading LLVM: it maps none of it (so
  // the fork copies next to nothing, and its exit unmaps nothing).
  std::string parentMaps;
  if (child) {
    std::ifstream maps("/proc/" + parentOf(std::to_string(child)) + "/maps");
    parentMaps.assign(std::istreambuf_iterator<char>(maps), std::istreambuf_iterator<char>());
  }
  // Killed as the kernel's OOM killer would, or as an abort ends it.
  if (child) ::kill(child, SIGKILL);
  compile.join();
  REQUIRE(child != 0);
  CHECK_THAT(parentMaps, Contains("/mlgo") && !Contains("libLLVM") && !Contains("libmlgo_cc"));
  INFO(outcome.err);
  CHECK(outcome.exitCode == 0);
  CHECK_THAT(outcome.err, Contains("large.o: mlgo cc died") && Contains("compiled as clang would"));
  REQUIRE(test::runIn(scratch.path(), {"clang-19", "-Oz", "-c", "large.c", "-o", "clang.o"}).exitCode == 0);
  CHECK(readFile(scratch / "large.o") == readFile(scratch / "clang.o"));
}
