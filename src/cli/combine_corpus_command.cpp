// mlgo combine-corpus: per-project corpora under one root -> one corpus.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/support/errors.h"
#include "mlgo/corpus/combine_corpora.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

void addCombineCorpusCommand(CLI::App *command, CommandRunner &runner) {
  auto rootDirectory = std::make_shared<std::string>();
  command->add_option("--root", *rootDirectory, "Directory whose subdirectories are corpora")
      ->required();  // a missing directory is bad input (exit 3, from the library)
  command->callback([rootDirectory, &runner] {
    runner = [rootDirectory] {
      if (!std::filesystem::is_directory(*rootDirectory))
        throw InputError(describeInputProblem(*rootDirectory, "", "not a directory"));
      const auto outputLock = claimOutput(*rootDirectory, "combine-corpus", ExistingOutput::Keep);
      const CombinedCorpus combined = combineCorpora(*rootDirectory);
      std::printf("%zu modules of %zu corpora combined in %s\n", combined.modules, combined.parts.size(),
                  rootDirectory->c_str());
      return exit_code::kSuccess;
    };
  });
}

}  // namespace mlgo::cli
