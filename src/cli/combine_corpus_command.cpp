// mlgo combine-corpus: per-project corpora under one root -> one corpus.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "mlgo/corpus/combine_corpora.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

void addCombineCorpusCommand(CLI::App &root, CommandRunner &runner) {
  auto rootDirectory = std::make_shared<std::string>();
  CLI::App *command = root.add_subcommand(
      "combine-corpus", "Combine the corpora in the subdirectories of a directory into one corpus there "
                        "(module names become <subdirectory>/<module>; nothing is copied)");
  command->add_option("--root", *rootDirectory, "Directory whose subdirectories are corpora")
      ->required()
      ->check(CLI::ExistingDirectory);
  command->callback([rootDirectory, &runner] {
    runner = [rootDirectory] {
      const CombinedCorpus combined = combineCorpora(*rootDirectory);
      std::printf("%zu modules of %zu corpora combined in %s\n", combined.modules, combined.parts.size(),
                  rootDirectory->c_str());
      return exit_code::kSuccess;
    };
  });
}

}  // namespace mlgo::cli
