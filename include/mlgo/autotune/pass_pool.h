#pragma once
// The pass-list pool: for every module a harvest has searched, its best
// lists (minimized, gated), their sizes and IR instruction counts. It is data
// that grows in the repository (configs/autotune/pool): a harvest stops at
// any moment and continues later, on any machine, from what is committed.
//
// An entry is keyed by the module's content, the search space and the LLVM
// version, never by paths: a corpus rebuilt in another directory finds every
// module done before. The directory holds one JSON-lines file per project
// (the first component of the module's name), one entry a line, sorted by
// module name, so that a harvest's commit changes few lines. docs/formats.md
// gives the format.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mlgo/autotune/search_space.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo::autotune {

/// What makes two harvests of a module the same question.
struct PoolKey {
  std::string module;  ///< modulePoolHash
  std::string space;   ///< searchSpaceHash
  std::string llvm;    ///< LLVM's version string
  bool operator<(const PoolKey &other) const;
};

/// A hash of the module's bitcode with the names a build directory leaves in
/// it cleared (source file name, module identifier), and of its ThinLTO
/// index; "" when the module cannot be read or parsed.
std::string modulePoolHash(const CorpusModule &module);
/// A hash of the searchable elements, in order (a list's indices mean
/// nothing in another space).
std::string searchSpaceHash(const SearchSpace &space);
/// The key of `module` for this build of mlgo ("" module hash: unreadable).
PoolKey poolKeyOf(const CorpusModule &module, const SearchSpace &space);

/// The pool file of a module: the first component of its name (the project
/// of a combined corpus), else the corpus directory's name; characters other
/// than letters, digits and ._+- become '_'.
std::string poolFileOf(const Corpus &corpus, const CorpusModule &module);

struct HarvestedList {
  std::vector<std::string> passes;  ///< search-space elements
  std::string pipeline;             ///< opt -passes= text of them
  SectionSizes sizes;
  uint64_t irInstructions = 0;
  std::string gate;  ///< "passed", "passed for C" or "unchecked"
};

struct PoolEntry {
  PoolKey key;
  std::string module;  ///< its name in the corpus harvested (for people)
  bool cxx = false;
  size_t budget = 0;
  uint64_t seed = 0;
  std::string strategy;
  size_t compilations = 0;
  std::string failure;  ///< non-empty: the -Oz compile failed, nothing searched
  SectionSizes oz;
  uint64_t ozIrInstructions = 0;
  /// Smallest first; the first is the module's best. Empty: nothing the
  /// gate accepts beat -Oz.
  std::vector<HarvestedList> lists;
};

class PassPool {
 public:
  /// Reads every *.jsonl file of `directory` (none: an empty pool). Throws
  /// InputError naming the file, the line and what is wrong; an entry whose
  /// space is `space`'s must name only its elements.
  static PassPool load(const std::filesystem::path &directory, const SearchSpace &space);

  /// The entry for `key` harvested with at least `budget` compilations.
  const PoolEntry *find(const PoolKey &key, size_t budget = 0) const;
  /// Adds an entry to `file` (a project's name: poolFileOf), or replaces
  /// the one with its key wherever it is.
  void add(PoolEntry entry, const std::string &file);
  /// Rewrites the files whose entries changed since load or the last save,
  /// each atomically.
  void save();

  /// The distinct lists the gate accepted on entries of `space` and this
  /// LLVM, as search-space elements: those best for most modules first (ties:
  /// shorter, then the pipeline text), then the runners-up the same way.
  std::vector<std::vector<std::string>> distinctLists(const SearchSpace &space) const;
  /// The lists of entries harvested under another search space (another
  /// prologue: the always-inline rule) with this LLVM, whose every pass is
  /// one of `space`'s and that distinctLists does not hold, ranked the same
  /// way. Their sizes mean nothing here and are never used: they are
  /// candidates that a sweep measures and gates again, so that a pool whose
  /// re-harvest has not reached every module still offers all its lists.
  std::vector<std::vector<std::string>> listsOfOtherSpaces(const SearchSpace &space) const;

  const std::filesystem::path &directory() const { return directory_; }
  /// Every entry, file by file, in file order.
  std::vector<const PoolEntry *> entries() const;

 private:
  std::filesystem::path directory_;
  std::map<std::string, std::vector<PoolEntry>> files_;  ///< file name -> entries
  std::map<PoolKey, std::pair<std::string, size_t>> index_;  ///< key -> (file, position)
  std::set<std::string> changed_;
};

/// What a pool holds for one search space and this LLVM.
struct PoolSummary {
  size_t entries = 0;  ///< of the space and LLVM
  size_t others = 0;   ///< of another space or LLVM (kept; their sizes never used)
  size_t failed = 0;   ///< modules whose -Oz compile failed
  size_t improved = 0; ///< modules with a gated list smaller than -Oz
  size_t distinctLists = 0;
  size_t otherSpaceLists = 0;  ///< listsOfOtherSpaces: what sweep-passes measures again
  /// Geometric mean over the searched modules of best/-Oz minus 1: the
  /// pool's oracle on the modules it came from.
  double geomeanChange = 0;  ///< .text+.data
  double geomeanIrChange = 0;
};
PoolSummary summarizePool(const PassPool &pool, const SearchSpace &space);

/// How much of a corpus the pool holds at a budget.
struct PoolCoverage {
  struct Project {
    std::string name;  ///< its pool file
    size_t modules = 0, covered = 0;
  };
  std::vector<Project> projects;
  size_t modules = 0, covered = 0, unreadable = 0;
  std::vector<std::string> missing;  ///< module names, corpus order
};
PoolCoverage poolCoverage(const PassPool &pool, const Corpus &corpus, const SearchSpace &space, size_t budget,
                          unsigned threads);

}  // namespace mlgo::autotune
