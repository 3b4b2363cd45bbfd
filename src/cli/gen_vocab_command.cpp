// mlgo gen-vocab: quantile bucket boundaries per feature of a trace.
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/vocab/gen_vocab.h"

namespace mlgo::cli {

namespace {

int runGenVocab(const GenVocabOptions &options) {
  const auto outputLock = claimOutput(options.outputDirectory.string(), "gen-vocab", ExistingOutput::Keep);
  GenVocabSummary summary = generateVocab(options);
  for (const std::string &feature : summary.sampledFeatures)
    spdlog::info("{}: too many distinct values to count exactly; boundaries come from a uniform sample", feature);
  std::printf("wrote %zu vocab files (%zu boundaries each) to %s from %llu decisions of %llu modules\n",
              summary.features, options.numBuckets, options.outputDirectory.c_str(),
              (unsigned long long)summary.decisionsUsed, (unsigned long long)summary.modules);
  return exit_code::kSuccess;
}

}  // namespace

void addGenVocabCommand(CLI::App *command, CommandRunner &runner) {
  auto options = std::make_shared<GenVocabOptions>();
  command->add_option("--trace", options->trace, "Trace directory")->required();
  command->add_option("--output-dir", options->outputDirectory, "Vocab directory to write")->required();
  command->add_option("--num-buckets", options->numBuckets, "Boundaries per feature")
      ->capture_default_str()
      ->check(wholeNumber(1, 100000));  // ml-compiler-opt uses 1000
  command->add_option("--sampling-fraction", options->samplingFraction, "Share of decisions used, in (0, 1]")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the decision sampling")
      ->capture_default_str()
      ->check(wholeNumber());
  command->callback([options, &runner] { runner = [options] { return runGenVocab(*options); }; });
}

}  // namespace mlgo::cli
