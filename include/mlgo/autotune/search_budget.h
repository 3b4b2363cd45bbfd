#pragma once
// The bound on a module's search, shared by every command that searches.
#include <cstdint>

namespace mlgo::autotune {

/// The most compilations a module's search may be given (autotune, harvest,
/// explore, mlgo cc --explore-budget): 20 times what LLM Compiler's
/// autotuner spent a program on average (4,877). At tens of milliseconds a
/// compile that is already about an hour a module; a larger count is a typo
/// or a run that would never end, refused before anything runs.
constexpr uint64_t kMaxSearchBudget = 100000;

}  // namespace mlgo::autotune
