#include "cli/store_project.h"

namespace mlgo::test {

namespace fs = std::filesystem;

const std::set<std::string> kStoreUnits{"helpers.o", "big_callee.o", "tables.o",       "recursion.o",
                                        "strings.o", "labels.o",     "always_inline.o", "sub/list.o"};

fs::path storeProject(const fs::path &directory) {
  fs::copy(testData() / "launcher" / "store", directory);
  fs::create_directories(directory / "src" / "sub");
  for (const std::string &unit : kStoreUnits) {
    const std::string source = unit.substr(0, unit.size() - 2) + ".c";
    fs::copy_file(testData() / source, directory / "src" / source);
  }
  return directory;
}

CommandOutcome makeStoreProject(const fs::path &project, const std::optional<std::vector<std::string>> &options,
                                int jobs, const std::vector<std::string> &targets, const std::string &flags,
                                const std::vector<std::string> &variables) {
  std::string cc = "clang-19";
  if (options) {
    cc = mlgoBinary() + " cc";
    for (const std::string &option : *options) cc += " " + option;
    cc += " clang-19";
  }
  std::vector<std::string> command{"make", "-s", "-j" + std::to_string(jobs), "SRC=" + (project / "src").string(),
                                   "CC=" + cc, "CFLAGS=" + flags};
  command.insert(command.end(), targets.begin(), targets.end());
  return runIn(project, command, variables);
}

std::string gatePrograms() { return (testData() / "gate").string(); }

std::vector<std::string> storeOptions(const std::string &store, const fs::path &log, size_t explore) {
  std::vector<std::string> options{"--store", store, "--gate-programs", gatePrograms(), "--log", log.string()};
  if (explore) options.insert(options.end(), {"--explore", std::to_string(explore)});
  return options;
}

}  // namespace mlgo::test
