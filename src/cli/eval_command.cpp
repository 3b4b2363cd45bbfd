// mlgo eval: sizes of a corpus under a choice, next to the -Oz default.
#include <algorithm>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/autotuner.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/eval/eval_report.h"
#include "mlgo/eval/evaluation.h"
#include "mlgo/eval/fidelity_check.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

struct EvalFlags {
  std::string corpus;
  std::string problem;  ///< empty: chosenProblem decides
  std::string fixedChoice = "default";  ///< --inline: one of the problem's fixedChoices()
  std::string passes;
  std::string passLists;
  std::string policy;
  std::string jsonPath;
  bool neverLarger = false;
  bool checkFidelity = false;
  std::string clang;
  DriverFlags driver;
};

int runEval(const EvalFlags &flags) {
  EvalOptions options;
  const Problem &problem = chosenProblem(flags.problem, flags.policy);
  options.problem = &problem;
  options.passPipeline = flags.passes;
  options.neverLarger = flags.neverLarger;
  if (!flags.policy.empty()) {
    if (flags.fixedChoice != "default") throw UsageError("--inline and --policy both choose the candidate's decisions");
    options.candidateHooks = problem.policyHooks(flags.policy);
    options.candidateDescription = "policy " + flags.policy;
  } else if (flags.fixedChoice != "default") {
    const std::vector<std::string> choices = problem.fixedChoices();
    if (std::find(choices.begin(), choices.end(), flags.fixedChoice) == choices.end()) {
      std::string known;
      for (const std::string &choice : choices) known += (known.empty() ? "" : ", ") + choice;
      throw UsageError("--inline " + flags.fixedChoice + ": problem " + problem.name() + " has " +
                       (known.empty() ? std::string("no fixed choices") : "the fixed choices " + known));
    }
    options.candidateHooks = problem.fixedChoiceHooks(flags.fixedChoice);
    options.candidateDescription = "inline " + flags.fixedChoice;
  }
  if (!options.passPipeline.empty()) CompilerDriver::validatePassPipeline(options.passPipeline);
  if (!flags.passLists.empty()) {
    options.modulePipelines =
        autotune::readPassLists(flags.passLists, autotune::SearchSpace::load(autotune::defaultSearchSpaceFile()));
    options.modulePipelinesDescription = flags.passLists;
    for (const auto &[module, pipeline] : options.modulePipelines) {
      try {
        CompilerDriver::validatePassPipeline(pipeline);
      } catch (const UsageError &e) {
        throw InputError(describeInputProblem(flags.passLists, module, e.what()));
      }
    }
  }
  std::string clang;
  if (flags.checkFidelity) {
    clang = findClang(flags.clang);
    if (clang.empty())
      throw UsageError("--check-fidelity needs clang-19: not found" +
                       (flags.clang.empty() ? std::string(" on PATH") : " at " + flags.clang));
  }
  const CompileSession session(flags.corpus, toDriverOptions(flags.driver));
  const Corpus &corpus = session.corpus();
  const CompilerDriver &driver = session.driver();
  if (!session.backendOptions().empty())
    spdlog::info("applying the corpus's -mllvm options to this process: {}", session.backendOptions().size());

  EvalReport report = evaluateCorpus(corpus, driver, options, ProgressReporter::callback("eval"));

  nlohmann::json json = evalReportToJson(report, flags.corpus);
  logMemoStats(driver.options());
  if (driver.options().memo) json["memo"] = driver.options().memo->stats().toJson();
  std::cout << evalReportToTable(report);
  if (flags.checkFidelity) {
    std::vector<CompileResult> baseline;
    for (const ModuleEvaluation &module : report.modules) baseline.push_back(module.baseline);
    FidelityReport fidelity = checkFidelity(corpus, baseline, clang, flags.driver.threads, driver.options().timeout);
    // Only comparable when eval compiled each module once, as clang does.
    if (report.candidateIsBaseline) fidelity.driverWallSeconds = report.wallSeconds;
    std::cout << fidelityReportToText(fidelity);
    json["fidelity"] = fidelityReportToJson(fidelity);
  }
  if (!flags.jsonPath.empty()) writeOutputFile(flags.jsonPath, json.dump(2) + "\n");
  for (const ModuleEvaluation &module : report.modules) {
    if (module.ok()) continue;
    const CompileResult &failed = module.baseline.ok() ? module.candidate : module.baseline;
    spdlog::warn("{}: {}: {}", module.name, failureKindName(failed.failure), failed.message);
  }
  if (report.compared == 0) return exit_code::kFailure;
  return report.failed() ? exit_code::kPartialFailure : exit_code::kSuccess;
}

}  // namespace

void addEvalCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<EvalFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory (corpus_description.json)")->required();
  addProblemOption(*command, flags->problem, "Optimization problem whose measures are compared");
  command->add_option("--inline", flags->fixedChoice,
                      "A fixed choice of the problem for the candidate, no policy: for inlining default (LLVM's "
                      "heuristic), hook-default (the heuristic through mlgo's policy hook), never, always")
      ->capture_default_str();
  command->add_option("--policy", flags->policy,
                      "A trained policy directory of --problem taking its decisions (greedy)");
  command->add_option("--passes", flags->passes,
                      "Optimize the candidate with this opt -passes= pipeline instead of the recorded level");
  command->add_option("--pass-lists", flags->passLists,
                      "Optimize each module with its own pass list from mlgo autotune's best.json "
                      "(modules not listed keep the recorded level)");
  command->add_flag("--never-larger", flags->neverLarger,
                    "A module whose candidate is larger (.text+data) than its plain compile counts as the plain "
                    "compile, as mlgo cc --never-larger keeps the smaller object; the report counts them (backups)");
  command->add_option("--json", flags->jsonPath, "Write the machine-readable report here")->check(outputFile());
  command->add_flag("--check-fidelity", flags->checkFidelity,
                    "Also compile each module with a clang-19 -cc1 subprocess and report .text differences");
  command->add_option("--clang", flags->clang, "clang-19 binary for --check-fidelity (default: from PATH)");
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runEval(*flags); }; });
}

}  // namespace mlgo::cli
