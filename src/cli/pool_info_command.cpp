// mlgo pool-info: what a harvested pass-list pool holds, and how much of a
// corpus it covers.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common_options.h"
#include "pass_list_options.h"
#include "mlgo/autotune/pass_pool.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct PoolInfoFlags {
  std::string pool, corpus;
  size_t budget = 500;
  bool json = false;
  PassListFlags passLists;
};

nlohmann::json coverageToJson(const autotune::PoolCoverage &coverage, size_t budget) {
  nlohmann::json projects = nlohmann::json::array();
  for (const auto &project : coverage.projects)
    projects.push_back({{"name", project.name}, {"modules", project.modules}, {"covered", project.covered}});
  return {{"budget", budget},
          {"modules", coverage.modules},
          {"covered", coverage.covered},
          {"unreadable", coverage.unreadable},
          {"projects", projects},
          {"missing", coverage.missing}};
}

void printCoverage(const autotune::PoolCoverage &coverage, size_t budget) {
  std::printf("coverage at budget %zu or more: %zu of %zu modules (%.1f%%)%s\n", budget, coverage.covered,
              coverage.modules, coverage.modules ? 100.0 * double(coverage.covered) / double(coverage.modules) : 0.0,
              coverage.unreadable ? (", " + std::to_string(coverage.unreadable) + " unreadable").c_str() : "");
  for (const auto &project : coverage.projects)
    std::printf("  %-24s %5zu / %5zu\n", project.name.c_str(), project.covered, project.modules);
}

int runPoolInfo(const PoolInfoFlags &flags) {
  const autotune::SearchSpace space = loadSearchSpace(flags.passLists);
  if (!std::filesystem::is_directory(flags.pool))
    throw InputError(describeInputProblem(flags.pool, "", "not a pool directory"));
  const autotune::PassPool pool = autotune::PassPool::load(flags.pool, space);
  const autotune::PoolSummary summary = autotune::summarizePool(pool, space);
  std::optional<autotune::PoolCoverage> coverage;
  if (!flags.corpus.empty())
    coverage = autotune::poolCoverage(pool, Corpus::load(flags.corpus), space, flags.budget, 0);
  if (flags.json) {
    nlohmann::json out{{"format", "mlgo-pool-info"},
                       {"version", 1},
                       {"entries", summary.entries},
                       {"other_entries", summary.others},
                       {"failed", summary.failed},
                       {"improved", summary.improved},
                       {"distinct_lists", summary.distinctLists},
                       {"other_space_lists", summary.otherSpaceLists},
                       {"geomean_change", summary.geomeanChange},
                       {"geomean_ir_instructions_change", summary.geomeanIrChange}};
    if (coverage) out["coverage"] = coverageToJson(*coverage, flags.budget);
    std::printf("%s\n", out.dump(2).c_str());
    return exit_code::kSuccess;
  }
  std::printf("%zu modules harvested (%zu whose -Oz compile failed; %zu entries of another search space or LLVM), "
              "%zu improved; %zu distinct gated lists (and %zu of other entries that sweep-passes measures again); "
              "each module's best vs -Oz: geomean .text+.data %+.2f%%, IR instructions %+.2f%%\n",
              summary.entries, summary.failed, summary.others, summary.improved, summary.distinctLists,
              summary.otherSpaceLists,
              100 * summary.geomeanChange, 100 * summary.geomeanIrChange);
  if (coverage) printCoverage(*coverage, flags.budget);
  return exit_code::kSuccess;
}

}  // namespace

void addPoolInfoCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<PoolInfoFlags>();
  command->add_option("--pool", flags->pool, "Pool directory (mlgo's own: configs/autotune/pool)")->required();
  command->add_option("--corpus", flags->corpus, "Also report how many of this corpus's modules the pool holds");
  command->add_option("--budget", flags->budget, "A module counts as covered when harvested with this budget or more")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_flag("--json", flags->json, "Print JSON (machine-readable) instead of text");
  command->add_option("--passes-file", flags->passLists.passesFile,
                      "Search space (default: configs/autotune/passes.txt of mlgo's data directory)");
  command->callback([flags, &runner] { runner = [flags] { return runPoolInfo(*flags); }; });
}

}  // namespace mlgo::cli
