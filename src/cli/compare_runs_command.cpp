// mlgo compare-runs: are two runs the same run with the same result?
#include <cstdio>
#include <memory>

#include "commands.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/run_comparison.h"

namespace mlgo::cli {

namespace {

struct CompareRunsFlags {
  std::string first, second;
  bool json = false;
};

int runCompareRuns(const CompareRunsFlags &flags) {
  const RunComparison comparison = compareRuns(flags.first, flags.second);
  if (flags.json) {
    nlohmann::json differences = nlohmann::json::array();
    for (const RunDifference &difference : comparison.differences)
      differences.push_back({{"kind", difference.kind}, {"what", difference.what}});
    const nlohmann::json report{{"same_run", comparison.sameRun()},
                                {"same_result", comparison.sameResult()},
                                {"differences", differences}};
    std::printf("%s\n", report.dump(2).c_str());
  } else if (comparison.sameResult()) {
    std::printf("same run, same result\n");
  } else {
    std::printf("%s: %s\n", comparison.sameRun() ? "same run, different result" : "different runs",
                comparison.differences.front().what.c_str());
    for (size_t i = 1; i < comparison.differences.size(); ++i)
      std::printf("  also: %s\n", comparison.differences[i].what.c_str());
  }
  return comparison.sameResult() ? exit_code::kSuccess : exit_code::kRunsDiffer;
}

}  // namespace

void addCompareRunsCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CompareRunsFlags>();
  command->add_option("first", flags->first, "An output directory of a run (or an output file with its manifest)")
      ->required();
  command->add_option("second", flags->second, "The run to compare it with")->required();
  command->add_flag("--json", flags->json, "Print the comparison as JSON");
  command->callback([flags, &runner] { runner = [flags] { return runCompareRuns(*flags); }; });
}

}  // namespace mlgo::cli
