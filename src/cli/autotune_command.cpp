// mlgo autotune: per-module pass-list search for code size, minimized and
// checked by the correctness gate.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/dataset.h"
#include "mlgo/driver/isolated_compiler.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "progress.h"

namespace mlgo::cli {

namespace {

// Defaults are the library's, so the two cannot drift apart.
const autotune::AutotuneOptions kDefaults;

struct AutotuneFlags {
  std::string corpus;
  std::string output;
  size_t budget = kDefaults.budget;
  std::string metric = sizeMetricName(kDefaults.metric);
  std::string strategy = autotune::strategyName(kDefaults.search.strategy);
  uint64_t seed = 0;
  size_t broadcast = kDefaults.broadcastLists;
  size_t gateFallbacks = kDefaults.gateFallbacks;
  bool noGate = false;
  std::string gatePrograms;
  std::string passesFile;
  std::string dataset;
  bool listPasses = false;
  std::string isolation = "process";
  DriverFlags driver;
};

int listPasses(const autotune::SearchSpace &space) {
  for (const autotune::PassElement &pass : space.all())
    std::printf("%s\t%s\t%s\t%s\n", pass.included ? "include" : "exclude", pass.level.c_str(), pass.element.c_str(),
                pass.reason.c_str());
  std::fprintf(stderr, "%zu passes, %zu searched\n", space.all().size(), space.passes().size());
  return exit_code::kSuccess;
}

int runAutotune(const AutotuneFlags &flags) {
  const std::filesystem::path passesFile =
      flags.passesFile.empty() ? autotune::defaultSearchSpaceFile() : std::filesystem::path(flags.passesFile);
  const autotune::SearchSpace space = autotune::SearchSpace::load(passesFile);
  if (flags.listPasses) return listPasses(space);
  if (flags.corpus.empty() || flags.output.empty()) throw UsageError("autotune needs --corpus and --output");
  if (flags.budget < 2) throw UsageError("--budget must be at least 2 (the -Oz compile and one candidate)");
  const auto outputLock = claimOutput(flags.output, "autotune", ExistingOutput::Keep);

  autotune::AutotuneOptions options;
  options.budget = flags.budget;
  options.metric = *parseSizeMetric(flags.metric);
  options.search.strategy = *autotune::parseStrategy(flags.strategy);
  options.search.seed = flags.seed;
  options.broadcastLists = flags.broadcast;
  options.gateFallbacks = flags.gateFallbacks;
  options.progress = ProgressReporter::callback("autotune");

  const DriverOptions driverOptions = toDriverOptions(flags.driver);
  CompilerDriver driver(driverOptions);
  Corpus corpus = Corpus::load(flags.corpus);
  if (corpus.modules.empty()) throw InputError(flags.corpus + ": the corpus lists no modules");
  applyCorpusBackendOptions(corpus);

  // Random pass lists can make LLVM corrupt its heap; only a separate
  // process contains that (see mlgo/driver/isolated_compiler.h).
  std::unique_ptr<IsolatedCompiler> isolated;
  if (flags.isolation == "process") {
    const auto timeout = driverOptions.timeout;
    isolated = std::make_unique<IsolatedCompiler>(compileWorkerCommand(flags.corpus, flags.driver),
                                                  timeout.count() > 0 ? timeout + std::chrono::seconds(30)
                                                                      : std::chrono::milliseconds(0));
    // A candidate compiled before (this run, or an earlier one with the same
    // --cache-dir) is not sent to a worker again. The budget counts it all
    // the same, so the search and best.json do not depend on the memo.
    options.compile = [&isolated, &driverOptions](const CorpusModule &module, const std::string &pipeline) {
      return CompilerDriver::throughMemo(driverOptions.memo.get(), {&module, pipeline, {}}, [&] {
        CompileResult result = isolated->compile(module, pipeline);
        if (driverOptions.memo) driverOptions.memo->noteWorkerCompile(result);
        return result;
      });
    };
  }

  // Rank 0 gates the winners and writes the outputs.
  Cluster &cluster = runCluster();
  std::unique_ptr<autotune::CorrectnessGate> gate;
  const std::filesystem::path gateWork = std::filesystem::path(flags.output) / "gate-work";
  if (!flags.noGate && cluster.isLeader()) {
    autotune::GateOptions gateOptions;
    gateOptions.programs =
        flags.gatePrograms.empty() ? autotune::defaultGatePrograms() : std::filesystem::path(flags.gatePrograms);
    gateOptions.workDirectory = gateWork;
    gateOptions.clang = findClang("");
    gateOptions.opt = autotune::findOpt();
    gateOptions.threads = flags.driver.threads;
    if (gateOptions.clang.empty() || gateOptions.opt.empty())
      throw UsageError("the correctness gate needs clang-19 and opt-19 (or pass --no-gate)");
    gate = std::make_unique<autotune::CorrectnessGate>(gateOptions);
    spdlog::info("correctness gate: {} programs", gate->programCount());
  }

  const autotune::AutotuneReport report = autotuneCorpus(corpus, driver, space, options, gate.get(), cluster);
  if (!cluster.isLeader()) return exit_code::kSuccess;
  std::error_code ignored;
  std::filesystem::remove_all(gateWork, ignored);
  const nlohmann::json json = autotune::autotuneReportToJson(report, space, options);
  writeFileAtomically(std::filesystem::path(flags.output) / "best.json", json.dump(2) + "\n");
  if (!flags.dataset.empty()) autotune::writeDataset(report, corpus, space, options, flags.dataset);

  const nlohmann::json &summary = json["summary"];
  std::printf(
      "%zu modules, %zu improved; geomean %s change vs -Oz %+.2f%%; %zu compilations (%zu failed "
      "candidates); gate: %zu lists checked, %zu rejected, %zu culprits isolated, %zu fallbacks screened out; mean "
      "list length %.2f; %.1f s\n",
      report.modules.size(), report.improved, flags.metric.c_str(), 100 * report.geomeanChange, report.compilations,
      report.failedCandidates, report.listsGated, report.listsRejected, report.culprits.size(),
      report.fallbacksScreenedOut, summary["mean_list_length"].get<double>(), report.seconds);
  for (const autotune::ModuleTuning &tuning : report.modules)
    if (!tuning.ok) spdlog::warn("{}: {}", tuning.name, tuning.failure);
  logMemoStats(driverOptions);
  if (isolated && isolated->workersLost() > 0)
    spdlog::info("{} compile workers were lost to crashes or hangs and replaced", isolated->workersLost());
  return report.modules.size() == summary["tuned"].get<size_t>() ? exit_code::kSuccess : exit_code::kPartialFailure;
}

}  // namespace

void addAutotuneCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<AutotuneFlags>();
  command->add_option("--corpus", flags->corpus, "Corpus directory");
  command->add_option("--output", flags->output, "Directory for best.json");
  command->add_option("--budget", flags->budget, "Compilations per module, every phase included")
      ->capture_default_str()
      ->check(wholeNumber(2));
  command->add_option("--metric", flags->metric, "text or text+data")
      ->check(CLI::IsMember({"text", "text+data"}))
      ->capture_default_str();
  command
      ->add_option("--strategy", flags->strategy,
                   "hybrid (local's start, half of the search on random lists, then local edits), local (-Oz "
                   "and known good variants, then local edits) or random (LLM Compiler's baseline)")
      ->check(CLI::IsMember({"hybrid", "local", "random"}))
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "Seed of the search")->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--broadcast", flags->broadcast, "Most frequent winning lists every module tries")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_flag("--no-gate", flags->noGate, "Skip the correctness gate (winners are not checked)");
  command
      ->add_option("--gate-fallbacks", flags->gateFallbacks,
                   "Runners-up a module puts through the gate, in order of size, when the gate rejects its best list "
                   "(those that break a program that failed before are screened out first and do not count)")
      ->capture_default_str()
      ->check(wholeNumber());
  command->add_option("--gate-programs", flags->gatePrograms,
                      "Directory of self-checking C/C++ programs (default: passlisteval/programs of mlgo's data "
                      "directory)");
  command->add_option("--passes-file", flags->passesFile,
                      "Search space (default: configs/autotune/passes.txt of mlgo's data directory)");
  command->add_option("--dataset", flags->dataset, "Also write one JSON line per module: IR, best list, sizes");
  command->add_flag("--list-passes", flags->listPasses, "Print the search space with reasons and exit");
  command
      ->add_option("--isolation", flags->isolation,
                   "process: candidates compile in worker processes (survives any crash, even heap corruption); "
                   "thread: in this process (contains crashes that leave the heap intact)")
      ->check(CLI::IsMember({"process", "thread"}))
      ->capture_default_str();
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] { runner = [flags] { return runAutotune(*flags); }; });
}

}  // namespace mlgo::cli
