// The layering of docs/architecture.md, checked on the sources: every
// `#include "mlgo/FOLDER/..."` of src/ and include/mlgo/ points to a folder of
// the same layer or a lower one, and no file outside problems/ includes a
// particular problem's header.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// docs/architecture.md's layers, top (1) to bottom.
const std::map<std::string, int> &layers() {
  static const std::map<std::string, int> table{
      {"cli", 1},         {"plugin", 2},    {"tracing", 2}, {"vocab", 2},       {"training", 2}, {"eval", 2},
      {"export", 2},      {"autotune", 2},  {"report", 2},  {"launcher", 2},    {"builds", 2},   {"distributed", 2},
      {"problems", 3},    {"policy", 4},    {"serve", 4},   {"trace", 5},       {"driver", 6},   {"corpus", 7},
      {"support", 8}};
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
