#pragma once
// When the correctness gate rejects a pass list, the passes that break the
// program are usually a few of many. Delta debugging (Zeller's ddmin) over
// the list, re-running only the program that failed, finds a smallest
// subsequence that still breaks it: the culprit, what one files as an LLVM
// miscompilation report. (A culprit is not a rule: a list holding it may still
// pass, e.g. when a later inliner removes the call a lone instcombine left
// unlinkable, so the autotuner reports culprits and never rejects by them.)
#include <cstddef>
#include <functional>
#include <vector>

namespace mlgo::autotune {

/// A 1-minimal subsequence of `list` (order kept) for which `breaks` holds,
/// found with at most `maxChecks` calls of `breaks` (each subsequence is
/// checked once). `list` itself is assumed to break and is never re-checked;
/// when no smaller part breaks (or the checks run out first) the answer is
/// what was reached so far, at worst `list`.
std::vector<int> isolateCulprit(const std::vector<int> &list,
                                const std::function<bool(const std::vector<int> &)> &breaks, size_t maxChecks);

/// Whether each of several parts breaks the program, answered in order
/// (e.g. run in parallel).
using BreaksMany = std::function<std::vector<bool>(const std::vector<std::vector<int>> &)>;

struct CulpritSearch {
  std::vector<int> passes;  ///< the culprit
  size_t checks = 0;        ///< the checks the one-at-a-time search makes
};

/// The same search, asking `breaks` about up to `batch` parts at once: the
/// next ones a round may ask, so idle cores answer them ahead. The culprit and
/// the checks counted are those of the one-at-a-time search whatever `batch`
/// (answers computed ahead and never needed are not counted).
CulpritSearch isolateCulprit(const std::vector<int> &list, const BreaksMany &breaks, size_t maxChecks, size_t batch);

}  // namespace mlgo::autotune
