// mlgo select-coreset: the few lists of a sweep that cover most of its gain.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/coreset.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct CoresetFlags {
  std::string sweep, output;
  size_t size = 50;
  std::string metric = "text+data";
  bool allowUngated = false;
  bool fill = false;
};

int runSelectCoreset(const CoresetFlags &flags) {
  const autotune::SweepTable table = autotune::SweepTable::read(flags.sweep);
  const autotune::Coreset coreset =
      autotune::buildCoreset(table, *parseSizeMetric(flags.metric), flags.size, flags.allowUngated, flags.fill);
  if (coreset.lists.empty())
    throw InputError(describeInputProblem(
        table.file, "",
        "no list of it is usable to gain over -Oz (" + std::to_string(table.modules.size()) + " modules, " +
            std::to_string(table.lists.size()) + " lists" +
            (flags.allowUngated ? ")" : "; lists the gate never checked need --allow-ungated)") +
            ": nothing was written"));
  coreset.write(flags.output);
  std::printf("%zu lists of %zu chosen over %zu modules; geomean %s vs -Oz with each module's best: coreset %+.2f%%, "
              "whole pool %+.2f%%; %s\n",
              coreset.lists.size(), table.lists.size(), table.modules.size(), flags.metric.c_str(),
              100 * coreset.oracleGeomeanChange, 100 * coreset.poolGeomeanChange, flags.output.c_str());
  for (size_t k = 0; k < coreset.lists.size(); ++k)
    std::printf("%3zu  %+.3f  %3zu modules  %s%s\n", k + 1, coreset.lists[k].addedGain, coreset.lists[k].modulesBest,
                coreset.lists[k].pipeline.c_str(), coreset.lists[k].cOnly ? "  (C modules only)" : "");
  return exit_code::kSuccess;
}

}  // namespace

void addSelectCoresetCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CoresetFlags>();
  command->add_option("--sweep", flags->sweep, "A sweep-passes output directory or sweep.json")->required();
  command->add_option("--output", flags->output, "The coreset file to write")->required()->check(outputFile());
  command->add_option("--size", flags->size, "At most this many lists")->capture_default_str()->check(wholeNumber(1));
  command->add_option("--metric", flags->metric, "text or text+data")
      ->check(CLI::IsMember({"text", "text+data"}))
      ->capture_default_str();
  command->add_flag("--allow-ungated", flags->allowUngated,
                    "Use lists the sweep did not gate (swept with --no-gate); never for a coreset that ships");
  command->add_flag("--fill", flags->fill,
                    "When no list adds coverage before --size, go on with the lists that gain on some module, by "
                    "their summed gain: candidates for a wider sweep (sweep-passes --lists reads the file), not a "
                    "coreset to ship");
  command->callback([flags, &runner] { runner = [flags] { return runSelectCoreset(*flags); }; });
}

}  // namespace mlgo::cli
