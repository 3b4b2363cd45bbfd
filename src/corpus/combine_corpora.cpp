#include "mlgo/corpus/combine_corpora.h"

#include <algorithm>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

CombinedCorpus combineCorpora(const fs::path &root) {
  if (!fs::is_directory(root)) throw InputError(root.string() + ": not a directory");
  CombinedCorpus combined;
  for (const fs::directory_entry &entry : fs::directory_iterator(root))
    // A linked subdirectory would take the combined corpus outside --root.
    if (!entry.is_symlink() && entry.is_directory() && fs::is_regular_file(entry.path() / kCorpusDescriptionFile))
      combined.parts.push_back(entry.path().filename().string());
  std::sort(combined.parts.begin(), combined.parts.end());
  if (combined.parts.empty())
    throw InputError(root.string() + ": no subdirectory holds a " + kCorpusDescriptionFile + " to combine");

  std::vector<std::string> names;
  bool hasThinLTO = false;
  for (size_t i = 0; i < combined.parts.size(); ++i) {
    const std::string &part = combined.parts[i];
    const Corpus corpus = Corpus::load(root / part);
    if (i > 0 && corpus.hasThinLTO != hasThinLTO)
      throw InputError(describeInputProblem((root / part / kCorpusDescriptionFile).string(), "has_thinlto",
                                            "differs from " + combined.parts.front() + "'s: cannot combine"));
    hasThinLTO = corpus.hasThinLTO;
    for (const CorpusModule &module : corpus.modules) names.push_back(part + "/" + module.name);
  }
  writeCorpusDescription(root, names, hasThinLTO);
  combined.modules = names.size();
  return combined;
}

}  // namespace mlgo
