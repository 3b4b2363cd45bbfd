#pragma once
// `mlgo combine-corpus`, as ml-compiler-opt's combine_training_corpus: the
// corpora in the subdirectories of a root become one corpus at the root whose
// module names are "<subdirectory>/<module>". Nothing is copied.
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo {

struct CombinedCorpus {
  std::vector<std::string> parts;  ///< the subdirectories combined, sorted
  size_t modules = 0;
};

/// Combines every immediate subdirectory of `root` that holds a
/// corpus_description.json (sorted by name, so the result does not depend on
/// the file system's order) and writes root/corpus_description.json
/// atomically. Throws InputError naming the file when a part is malformed,
/// when parts disagree on has_thinlto, or when there is no part.
CombinedCorpus combineCorpora(const std::filesystem::path &root);

}  // namespace mlgo
