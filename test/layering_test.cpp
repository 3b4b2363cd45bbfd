// The layering of docs/architecture.md, checked on the sources: every
// `#include "mlgo/FOLDER/..."` of src/ and include/mlgo/ points to a folder of
// the same layer or a lower one; between the front end and the pipeline stages
// (layers 1 and 2) only along an edge of the declared table; and no file
// outside problems/ includes a particular problem's header.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// docs/architecture.md's layers, top (1) to bottom.
const std::map<std::string, int> &layers() {
  static const std::map<std::string, int> table{
      {"cli", 1},         {"plugin", 2},    {"tracing", 2}, {"vocab", 2},       {"training", 2}, {"eval", 2},
      {"export", 2},      {"autotune", 2},  {"report", 2},  {"launcher", 2},    {"builds", 2},   {"distributed", 2},
      {"problems", 3},    {"store", 3},     {"policy", 4},    {"serve", 4},   {"trace", 5},       {"metrics", 5},  {"driver", 6},
      {"corpus", 7},      {"support", 8}};
  return table;
}

/// Which folder of layers 1 and 2 (the front end and the stages) may include
/// which other one: docs/architecture.md's table, edge for edge. Every folder
/// of those layers has a row, even an empty one; what is not listed is not
/// allowed, and an edge that no include uses any more is removed.
const std::map<std::string, std::set<std::string>> &stageEdges() {
  static const std::map<std::string, std::set<std::string>> table{
      {"cli", {"autotune", "builds", "distributed", "eval", "launcher", "report", "tracing", "training", "vocab"}},
      {"plugin", {"launcher"}},
      {"tracing", {"distributed"}},
      {"vocab", {}},
      {"training", {"autotune", "distributed", "export", "vocab"}},
      {"eval", {}},
      {"export", {}},
      {"autotune", {"distributed"}},
      {"report", {}},
      {"launcher", {"autotune", "eval"}},
      {"builds", {"launcher"}},
      {"distributed", {}}};
  return table;
}

fs::path projectRoot() { return fs::path(MLGO_TEST_SOURCES).parent_path(); }

struct Include {
  fs::path file;
  std::string from, to, header;
};

/// Every `#include "mlgo/..."` of the library's sources and headers, with the
/// folder of the including file and of the included one.
std::vector<Include> libraryIncludes() {
  const std::regex include(R"(^\s*#\s*include\s*"mlgo/([a-z_]+)/([^"]+)\")");
  std::vector<Include> found;
  for (const fs::path &top : {projectRoot() / "src", projectRoot() / "include" / "mlgo"}) {
    for (const auto &entry : fs::recursive_directory_iterator(top)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".h" && extension != ".cpp")) continue;
      const std::string from = fs::relative(entry.path(), top).begin()->string();
      std::ifstream in(entry.path());
      std::smatch match;
      for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, match, include)) found.push_back({entry.path(), from, match[1], match[2]});
    }
  }
  return found;
}

}  // namespace

TEST_CASE("layering: every include of the library points to its own layer or a lower one", "[architecture]") {
  const std::vector<Include> includes = libraryIncludes();
  REQUIRE(includes.size() > 500);  // the whole library was read
  for (const Include &include : includes) {
    INFO(include.file.string() << " includes mlgo/" << include.to << "/" << include.header);
    REQUIRE(layers().count(include.from));  // a new folder needs its place in the layers
    REQUIRE(layers().count(include.to));
    CHECK(layers().at(include.to) >= layers().at(include.from));
  }
}

TEST_CASE("layering: a stage includes another stage only along an edge of the table", "[architecture]") {
  for (const auto &[folder, layer] : layers()) {
    INFO(folder << " (layer " << layer << ") needs a row in stageEdges(), and only a folder of layers 1 and 2 has one");
    CHECK(stageEdges().count(folder) == (layer <= 2 ? 1u : 0u));
  }
  std::set<std::pair<std::string, std::string>> used;
  for (const Include &include : libraryIncludes()) {
    if (include.from == include.to || !stageEdges().count(include.from) || !stageEdges().count(include.to)) continue;
    used.insert({include.from, include.to});
    INFO(include.file.string() << " includes mlgo/" << include.to << "/" << include.header << ": " << include.from
                               << " -> " << include.to << " is not in the table (test/layering_test.cpp, "
                               << "docs/architecture.md)");
    CHECK(stageEdges().at(include.from).count(include.to));
  }
  for (const auto &[from, targets] : stageEdges())
    for (const std::string &to : targets) {
      INFO(from << " -> " << to << " is in the table but no include uses it: remove it from the table");
      CHECK(used.count({from, to}));
    }
}

TEST_CASE("layering: the stage table has no loop", "[architecture]") {
  // What each stage reaches through the table.
  std::map<std::string, std::set<std::string>> reach;
  std::function<void(const std::string &, const std::string &)> visit = [&](const std::string &from,
                                                                            const std::string &through) {
    for (const std::string &to : stageEdges().at(through))
      if (reach[from].insert(to).second) visit(from, to);
  };
  for (const auto &[stage, targets] : stageEdges()) visit(stage, stage);
  for (const auto &[from, reached] : reach)
    for (const std::string &to : reached) {
      INFO(from << " and " << to << " reach each other through the table");
      CHECK_FALSE(reach[to].count(from));
    }
}

TEST_CASE("layering: docs/architecture.md states the stage table of this test", "[architecture]") {
  // Rows of the document's table: | `from` | `to`, `to`, ... or "nothing" | why |
  std::ifstream in(projectRoot() / "docs" / "architecture.md");
  REQUIRE(in);
  const std::regex row(R"(^\| `([a-z]+)` \| ([^|]*) \|)");
  const std::regex name("`([a-z]+)`");
  std::map<std::string, std::set<std::string>> documented;
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, match, row) || !stageEdges().count(match[1])) continue;
    std::set<std::string> &targets = documented[match[1]];
    const std::string cell = match[2];
    for (std::sregex_iterator it(cell.begin(), cell.end(), name), end; it != end; ++it) targets.insert((*it)[1]);
  }
  for (const auto &[stage, targets] : stageEdges()) {
    INFO("the row of `" << stage << "` in docs/architecture.md's stage table");
    REQUIRE(documented.count(stage));
    CHECK(documented.at(stage) == targets);
  }
  CHECK(documented.size() == stageEdges().size());
}

TEST_CASE("layering: only the problems include a particular problem's headers", "[architecture]") {
  size_t problemHeaders = 0;
  for (const Include &include : libraryIncludes()) {
    if (include.to != "problems" || include.header.find('/') == std::string::npos) continue;
    ++problemHeaders;
    INFO(include.file.string() << " includes mlgo/problems/" << include.header);
    CHECK(include.from == "problems");
  }
  CHECK(problemHeaders > 10);  // the problems' own includes were seen
}

TEST_CASE("layering: training's learners include only their own folder and shared/", "[architecture]") {
  // training/ by learner: cloning, ppo, es and predictor each build on
  // shared/ (settings, rewards, collection, the network), never on another
  // learner; shared/ builds on no learner. The library's entry point
  // (training_library) sits above them all.
  const std::set<std::string> learners{"cloning", "ppo", "es", "predictor"};
  const std::regex include(R"(^\s*#\s*include\s*"mlgo/training/([a-z_]+)/)");
  size_t seen = 0;
  for (const fs::path &top : {projectRoot() / "src" / "training", projectRoot() / "include" / "mlgo" / "training"}) {
    for (const auto &entry : fs::recursive_directory_iterator(top)) {
      if (!entry.is_regular_file()) continue;
      const fs::path relative = fs::relative(entry.path(), top);
      const std::string from = relative.has_parent_path() ? relative.begin()->string() : "";
      if (from.empty()) continue;  // the entry point
      INFO(entry.path().string());
      REQUIRE((learners.count(from) || from == "shared"));
      std::ifstream in(entry.path());
      std::smatch match;
      for (std::string line; std::getline(in, line);) {
        if (!std::regex_search(line, match, include)) continue;
        ++seen;
        const std::string to = match[1];
        INFO(line);
        CHECK((to == from || to == "shared"));
      }
    }
  }
  CHECK(seen > 50);
}
