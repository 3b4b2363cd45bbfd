#pragma once
// What every command that compiles a corpus sets up, once: the corpus
// (refused when it lists no modules), its recorded -mllvm options applied to
// the process (LLVM keeps them process-wide), and the driver. The problems'
// hooks install themselves (the inlining advisor at start-up, the
// register-allocation seam with its first hook).
#include <filesystem>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"

namespace mlgo {

class CompileSession {
 public:
  /// Throws InputError naming the corpus description when the corpus is
  /// unreadable or lists no modules.
  CompileSession(const std::filesystem::path &corpus, DriverOptions options);

  const Corpus &corpus() const { return corpus_; }
  const CompilerDriver &driver() const { return driver_; }
  /// The -mllvm options applied to this process (applyCorpusBackendOptions).
  const std::vector<std::string> &backendOptions() const { return backendOptions_; }

 private:
  Corpus corpus_;
  std::vector<std::string> backendOptions_;
  CompilerDriver driver_;
};

}  // namespace mlgo
