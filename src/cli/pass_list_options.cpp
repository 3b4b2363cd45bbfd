#include "pass_list_options.h"

#include <spdlog/spdlog.h>

#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/errors.h"

namespace mlgo::cli {

void addPassListFlags(CLI::App &command, PassListFlags &flags) {
  command.add_option("--passes-file", flags.passesFile,
                     "Search space (default: configs/autotune/passes.txt of mlgo's data directory)");
  command
      .add_option("--isolation", flags.isolation,
                  "process: candidates compile in worker processes (survives any crash, even heap corruption); "
                  "thread: in this process (contains crashes that leave the heap intact)")
      ->check(CLI::IsMember({"process", "thread"}))
      ->capture_default_str();
  command.add_flag("--no-gate", flags.noGate, "Skip the correctness gate (lists are not checked)");
  command.add_option("--gate-programs", flags.gatePrograms,
                     "Directory of self-checking C/C++ programs (default: configs/autotune/gate-programs of mlgo's "
                     "data directory)");
}

autotune::SearchSpace loadSearchSpace(const PassListFlags &flags) {
  return autotune::SearchSpace::load(flags.passesFile.empty() ? autotune::defaultSearchSpaceFile()
                                                              : std::filesystem::path(flags.passesFile));
}

autotune::CandidateCompile candidateCompile(const PassListFlags &flags, const std::string &corpus,
                                            const DriverFlags &driverFlags, const DriverOptions &driverOptions,
                                            std::unique_ptr<IsolatedCompiler> &workers) {
  // Random pass lists can make LLVM corrupt its heap; only a separate
  // process contains that (see mlgo/driver/isolated_compiler.h).
  if (flags.isolation != "process") return {};
  const auto timeout = driverOptions.timeout;
  workers = std::make_unique<IsolatedCompiler>(compileWorkerCommand(corpus, driverFlags),
                                               timeout.count() > 0 ? timeout + std::chrono::seconds(30)
                                                                   : std::chrono::milliseconds(0),
                                               WorkerReuse::OneModule);
  // A candidate compiled before (this run, or an earlier one with the same
  // --cache-dir) is not sent to a worker again. Budgets count it all the
  // same, so results do not depend on the memo.
  IsolatedCompiler *isolated = workers.get();
  return [isolated, driverOptions](const CorpusModule &module, const std::string &pipeline) {
    return CompilerDriver::throughMemo(driverOptions.memo.get(), {&module, pipeline, {}}, [&] {
      CompileResult result = isolated->compile(module, pipeline);
      if (driverOptions.memo) driverOptions.memo->noteWorkerCompile(result);
      return result;
    });
  };
}

std::unique_ptr<autotune::CorrectnessGate> makeGate(const PassListFlags &flags, const std::string &workDirectory,
                                                    const DriverFlags &driver) {
  if (flags.noGate) return nullptr;
  autotune::GateOptions options;
  options.programs =
      flags.gatePrograms.empty() ? autotune::defaultGatePrograms() : std::filesystem::path(flags.gatePrograms);
  options.workDirectory = workDirectory;
  options.clang = findClang("");
  options.threads = driver.threads;
  if (!driver.cacheDirectory.empty())
    options.verdictCache = std::filesystem::path(driver.cacheDirectory) / "gate-verdicts";
  if (flags.isolation == "process") {
    // The gate's compiles stay out of the memo: each list's objects are seen once.
    DriverFlags workers = driver;
    workers.noMemo = true;
    workers.cacheDirectory.clear();
    workers.timeoutSeconds = std::chrono::duration<double>(options.timeout).count();
    options.workerCommand = [workers](const std::filesystem::path &corpus) {
      return compileWorkerCommand(corpus.string(), workers);
    };
  }
  if (options.clang.empty()) throw UsageError("the correctness gate needs clang-19 (or pass --no-gate)");
  auto gate = std::make_unique<autotune::CorrectnessGate>(options);
  spdlog::info("correctness gate: {} programs{}", gate->programCount(),
               options.verdictCache.empty() ? "" : ", verdicts remembered in " + options.verdictCache.string());
  return gate;
}

void logLostWorkers(const std::unique_ptr<IsolatedCompiler> &workers) {
  if (workers && workers->workersLost() > 0)
    spdlog::info("{} compile workers were lost to crashes or hangs and replaced", workers->workersLost());
}

}  // namespace mlgo::cli
