#pragma once
// When the correctness gate rejects a pass list, the passes that break the
// program are usually a few of many. Delta debugging (Zeller's ddmin) over
// the list, re-running only the program that failed, finds a smallest
// subsequence that still breaks it: the culprit. Lists containing a known
// culprit are then passed over when a module looks for a fallback, instead of
// spending full gate checks on near-copies of a broken list. Culprits are also
// what one files as an LLVM miscompilation report.
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

/// Whether `pattern` occurs in `list` as a subsequence (in order, gaps
/// allowed): such a list holds every pass of the culprit in the same order.
bool containsSubsequence(const std::vector<int> &list, const std::vector<int> &pattern);

}  // namespace mlgo::autotune
