// mlgo calibrate-costs: times the passes of mlgo's own compiles on a corpus,
// fits the compile-cost model to them (the text of src/driver/pass_costs.inc)
// and says how far this binary's model is from what was measured.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "mlgo/autotune/cost_calibration.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"
#include "pass_list_options.h"
#include "progress.h"
#include "validators.h"

namespace mlgo::cli {

namespace {

struct CalibrateFlags {
  std::string corpus, output, report, pipelinesFile;
  autotune::CostCalibrationOptions options;
  unsigned threads = 1;
  double timeoutSeconds = 300;
  PassListFlags passLists;
};

/// The median and the share within a factor of 1.25 of what was measured.
nlohmann::json describeErrors(std::vector<double> errors) {
  if (errors.empty()) return nullptr;
  std::sort(errors.begin(), errors.end());
  const auto within = std::count_if(errors.begin(), errors.end(), [](double e) { return e >= 0.8 && e <= 1.25; });
  return {{"lists", errors.size()},
          {"median", std::round(errors[errors.size() / 2] * 1000) / 1000},
          {"lowest", std::round(errors.front() * 1000) / 1000},
          {"highest", std::round(errors.back() * 1000) / 1000},
          {"within_25_percent", std::round(1000.0 * double(within) / double(errors.size())) / 1000}};
}

std::string reportLines(const autotune::CostCalibration &calibration) {
  std::string text;
  for (const autotune::CalibrationCompile &compile : calibration.compiles)
    text += nlohmann::json{{"module", compile.module},
                           {"pipeline", compile.pipeline},
                           {"ok", compile.ok},
                           {"measured_ns", uint64_t(compile.measuredNanoseconds)},
                           {"estimated_ns", uint64_t(compile.estimatedNanoseconds)}}
                .dump() +
            "\n";
  return text;
}

int runCalibration(const CalibrateFlags &flags) {
  const autotune::SearchSpace space = loadSearchSpace(flags.passLists);
  autotune::CostCalibrationOptions options = flags.options;
  if (!flags.pipelinesFile.empty())
    forEachLine(readFile(flags.pipelinesFile), [&options](size_t, std::string_view line) {
      if (!line.empty() && line.front() != '#') options.pipelines.emplace_back(line);
    });
  autotune::calibrationPipelines(space, options, flags.pipelinesFile);  // refuse a bad file before compiling
  options.progress = ProgressReporter::callback("calibrate-costs");
  DriverOptions driverOptions;  // no memo: every compile runs, and is timed
  driverOptions.threads = flags.threads;
  driverOptions.timeout = std::chrono::milliseconds(int64_t(flags.timeoutSeconds * 1000));
  const CompileSession session(flags.corpus, driverOptions);
  const auto start = std::chrono::steady_clock::now();
  const autotune::CostCalibration calibration = autotune::calibrateCosts(session.corpus(), session.driver(), space, options);
  if (!flags.output.empty()) writeFileAtomically(flags.output, autotune::costModelSource(calibration.times));
  if (!flags.report.empty()) writeFileAtomically(flags.report, reportLines(calibration));
  const size_t failed = size_t(std::count_if(calibration.compiles.begin(), calibration.compiles.end(),
                                             [](const autotune::CalibrationCompile &compile) { return !compile.ok; }));
  const nlohmann::json summary{
      {"modules", calibration.modules.size()},
      {"compiles", calibration.compiles.size()},
      {"failed", failed},
      {"passes_timed", calibration.times.passes.size()},
      {"code_generation_ns_per_instruction", std::round(calibration.times.codeGeneration.fit()[1] * 10) / 10},
      {"largest_function", calibration.times.largestFunction},
      {"model_ratio_error", describeErrors(autotune::ratioErrors(calibration))},
      {"seconds", std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 10) / 10}};
  std::printf("%s\n", summary.dump().c_str());
  return calibration.compiles.size() == failed ? exit_code::kFailure : exit_code::kSuccess;
}

}  // namespace

void addCalibrateCostsCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CalibrateFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus to time (the demo's training corpus, never a held-out one)")
      ->required();
  command->add_option("--output", flags->output,
                      "Write the fitted model here (the text of src/driver/pass_costs.inc; rebuild mlgo to use it)");
  command->add_option("--report", flags->report,
                      "Write one JSON line per compile: module, pipeline, measured and estimated nanoseconds");
  command->add_option("--modules", flags->options.modules, "Modules of the corpus to time")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--rounds", flags->options.rounds, "Times each pass of the search space runs on each module")
      ->capture_default_str()
      ->check(wholeNumber(1, 100));
  command->add_option("--list-length", flags->options.listLength, "Passes in each list those rounds run")
      ->capture_default_str()
      ->check(wholeNumber(1, 200));
  command->add_option("--pipelines", flags->pipelinesFile,
                      "Run these lists instead (one opt pipeline of the space's elements a line), e.g. a store's "
                      "choices, to see the model's error on them");
  command->add_option("--seed", flags->options.seed, "Seed of the lists' order")->capture_default_str();
  command->add_option("--threads", flags->threads, "Compile threads (two compiles on two cores time each other)")
      ->capture_default_str()
      ->check(wholeNumber(1));
  command->add_option("--timeout", flags->timeoutSeconds, "Seconds one compile may take before it is skipped")
      ->capture_default_str()
      ->check(finiteSeconds(false));
  command->add_option("--passes-file", flags->passLists.passesFile,
                      "Search space whose passes the lists run (default: mlgo's configs/autotune/passes.txt)");
  command->callback([flags, &runner] { runner = [flags] { return runCalibration(*flags); }; });
}

}  // namespace mlgo::cli
