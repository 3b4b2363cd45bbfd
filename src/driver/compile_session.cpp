#include "mlgo/driver/compile_session.h"

#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

Corpus loadNonEmpty(const std::filesystem::path &directory) {
  Corpus corpus = Corpus::load(directory);
  if (corpus.modules.empty())
    throw InputError(describeInputProblem((directory / kCorpusDescriptionFile).string(), "modules",
                                          "the corpus lists no modules"));
  return corpus;
}

}  // namespace

CompileSession::CompileSession(const std::filesystem::path &corpus, DriverOptions options)
    : corpus_(loadNonEmpty(corpus)),
      backendOptions_(applyCorpusBackendOptions(corpus_)),
      driver_(std::move(options)) {}

}  // namespace mlgo
