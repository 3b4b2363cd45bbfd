// mlgo cc's options table against what is made from it and what describes
// it: the command line (--help), the environment, and the command reference.
#include <catch2/catch.hpp>

#include <sstream>

#include <map>
#include <regex>
#include <set>

#include "mlgo/launcher/cc_options.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;
using Catch::Matchers::Contains;

namespace {

/// The rows of docs/commands.md's mlgo cc option table: flag -> (variable, default).
std::map<std::string, std::pair<std::string, std::string>> documentedOptions() {
  const std::string docs = readFile(std::filesystem::path(MLGO_TEST_SOURCES).parent_path() / "docs" / "commands.md");
  const size_t section = docs.find("## `mlgo cc`");
  REQUIRE(section != std::string::npos);
  const size_t table = docs.find("| option | variable | default | what |", section);
  REQUIRE(table != std::string::npos);
  std::map<std::string, std::pair<std::string, std::string>> rows;
  const std::regex row(R"(^\| `(--[a-z-]+)[^`]*` \| (?:`([A-Z_]+)`|—) \| ([^|]+) \|)");
  size_t at = docs.find('\n', docs.find('\n', table) + 1) + 1;
  for (size_t end; (end = docs.find('\n', at)) != std::string::npos && docs.compare(at, 1, "|") == 0; at = end + 1) {
    std::smatch match;
    const std::string line = docs.substr(at, end - at);
    REQUIRE(std::regex_search(line, match, row));
    std::string fallback = match[3];
    fallback.erase(fallback.find_last_not_of(' ') + 1);
    rows[match[1]] = {match[2], fallback};
  }
  return rows;
}

/// The table's default as the documentation writes it.
std::string documentedDefault(const CcOption &option) {
  if (std::holds_alternative<std::string CcSettings::*>(option.member)) return "";
  if (std::holds_alternative<bool CcSettings::*>(option.member)) return option.defaultValue != 0 ? "on" : "off";
  std::ostringstream shortest;  // 1.05, 600: as a person writes the number
  shortest << option.defaultValue;
  return shortest.str();
}

}  // namespace

TEST_CASE("cc options: one row per setting, each found by its setting, variables of mlgo cc's own", "[launcher]") {
  std::set<std::string> flags;
  for (const CcOption &option : kCcOptions) {
    INFO(option.flag);
    CHECK(flags.insert(option.flag).second);
    CHECK(std::string(option.flag).rfind("--", 0) == 0);
    if (option.variable) CHECK(std::string(option.variable).rfind("MLGO_CC_", 0) == 0);
    CHECK(&ccOption(option.member) == &option);
    CHECK(std::string(option.help).find('\n') == std::string::npos);
  }
  // The defaults a setting starts with are the table's.
  const CcSettings settings;
  CHECK(settings.predictedLists == size_t(ccOption(&CcSettings::predictedLists).defaultValue));
  CHECK(settings.exploreBudget == size_t(ccOption(&CcSettings::exploreBudget).defaultValue));
  CHECK(settings.timeout == ccOption(&CcSettings::timeout).defaultValue);
  CHECK(settings.costBound == store::kDefaultCostBound);
  CHECK(ccAssignment(&CcSettings::store, "/s.db") == std::string(ccOption(&CcSettings::store).variable) + "=/s.db");
}

TEST_CASE("cc options: mlgo cc --help and the command reference agree with the table", "[launcher][cli]") {
  const test::CommandOutcome help = test::runMlgo({"cc", "--help"});
  REQUIRE(help.exitCode == 0);
  const auto documented = documentedOptions();
  CHECK(documented.size() == std::size(kCcOptions));
  for (const CcOption &option : kCcOptions) {
    INFO(option.flag);
    CHECK_THAT(help.out, Contains(option.flag));
    if (option.variable) CHECK_THAT(help.out, Contains(std::string("(env ") + option.variable + ")"));
    const auto row = documented.find(option.flag);
    REQUIRE(row != documented.end());
    CHECK(row->second.first == (option.variable ? option.variable : ""));
    const std::string fallback = documentedDefault(option);
    if (!fallback.empty()) CHECK(row->second.second == fallback);
  }
}

TEST_CASE("cc options: a variable that does not fit is a usage error naming it, a flag wins over its variable",
          "[launcher][cli]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "unit.c", "int unit(int x) { return x + 1; }\n");
  const std::vector<std::string> compile{"cc", "clang-19", "-Oz", "-c", (scratch / "unit.c").string(), "-o",
                                         (scratch / "unit.o").string()};
  for (const CcOption &option : kCcOptions) {
    if (!option.variable || !std::holds_alternative<size_t CcSettings::*>(option.member)) continue;
    INFO(option.flag);
    const test::CommandOutcome wrong = test::runMlgoWithEnvironment({std::string(option.variable) + "=many"}, compile);
    CHECK(wrong.exitCode == 2);
    CHECK_THAT(wrong.err, Contains(option.variable) && Contains("\"many\""));
  }
  // The log the flag names gets the line, not the variable's.
  std::vector<std::string> flagged = compile;
  flagged.insert(flagged.begin() + 1, {"--log", (scratch / "flag.log").string(), "--record", (scratch / "c").string()});
  const test::CommandOutcome built = test::runMlgoWithEnvironment(
      {std::string(ccVariable(&CcSettings::log)) + "=" + (scratch / "variable.log").string()}, flagged);
  INFO(built.err);
  CHECK(built.exitCode == 0);
  CHECK(std::filesystem::exists(scratch / "flag.log"));
  CHECK_FALSE(std::filesystem::exists(scratch / "variable.log"));
}
