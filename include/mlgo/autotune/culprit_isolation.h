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

}  // namespace mlgo::autotune
