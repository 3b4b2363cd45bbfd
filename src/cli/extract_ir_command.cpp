// mlgo extract-ir: a build's objects -> a corpus (LLVM's extract_ir layout).
#include <filesystem>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/corpus/extract_ir.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct ExtractFlags {
  std::string input;
  std::string outputDir;
  std::string inputType = "json";
  std::string cmdFilter;
  std::string thinltoBuild;
  unsigned thinltoOptLevel = 2;
  unsigned threads = 0;
};

int runExtractIR(const ExtractFlags &flags) {
  ExtractOptions options;
  options.input = flags.input;
  options.outputDirectory = flags.outputDir;
  options.inputType = flags.inputType == "json" ? ExtractInputType::CompileCommands : ExtractInputType::ObjectList;
  if (!flags.cmdFilter.empty()) options.commandFilter = flags.cmdFilter;
  options.threads = flags.threads;
  options.thinlto = flags.thinltoBuild == "local"         ? ThinLTOBuild::Local
                    : flags.thinltoBuild == "distributed" ? ThinLTOBuild::Distributed
                                                          : ThinLTOBuild::None;
  options.thinltoOptLevel = flags.thinltoOptLevel;
  // A missing input must not leave an empty output directory behind.
  const bool directoryAllowed = options.thinlto == ThinLTOBuild::Local;
  if (!std::filesystem::is_regular_file(flags.input) &&
      !(directoryAllowed && std::filesystem::is_directory(flags.input)))
    throw InputError(describeInputProblem(flags.input, "", directoryAllowed ? "missing" : "missing, or not a file"));
  const auto outputLock = claimOutput(flags.outputDir, "extract-ir", ExistingOutput::Keep);

  ExtractSummary summary = extractIR(options);
  for (const std::string &warning : summary.warnings) spdlog::warn("skipped {}", warning);
  std::string reasons;
  for (const auto &[reason, count] : summary.skippedByReason)
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
  spdlog::info("{} extracted, {} skipped{}{}{}", summary.extracted(), summary.skipped(),
               reasons.empty() ? "" : " (", reasons, reasons.empty() ? "" : ")");
  if (summary.extracted() == 0) {
    spdlog::error("nothing was extracted from {}", flags.input);
    return exit_code::kFailure;
  }
  std::cout << summary.extracted() << " modules extracted to " << flags.outputDir << "\n";
  return exit_code::kSuccess;
}

}  // namespace

void addExtractIRCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ExtractFlags>();
  command->add_option("--input", flags->input,
                      "compile_commands.json, or a file listing object paths (or, with --thinlto-build local, the "
                      "build directory)")
      ->required();  // a missing file is bad input (exit 3, from the library), not a bad flag
  command->add_option("--output-dir", flags->outputDir, "Corpus directory to write")->required();
  command->add_option("--input-type", flags->inputType, "json (compile_commands.json) or objects (list of paths)")
      ->check(CLI::IsMember({"json", "objects"}))
      ->capture_default_str();
  command->add_option("--cmd-filter", flags->cmdFilter,
                      "Keep modules with a recorded argument matching this regex, e.g. '^-O2|-Os|-Oz$'");
  command->add_option("--thinlto-build", flags->thinltoBuild,
                      "A ThinLTO build: local (lld's saved post-import modules below the input's directory) or "
                      "distributed (the input's backend compiles)")
      ->check(CLI::IsMember({"local", "distributed"}));
  command->add_option("--thinlto-opt-level", flags->thinltoOptLevel,
                      "The link's LTO level for --thinlto-build local (lld's --lto-O; clang passes 2 for -O2/-Os/-Oz)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  command->add_option("--threads", flags->threads, "Threads (0: one per core)")->capture_default_str()
      ->check(wholeNumber());
  command->callback([flags, &runner] { runner = [flags] { return runExtractIR(*flags); }; });
}

}  // namespace mlgo::cli
