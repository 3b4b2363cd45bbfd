#pragma once
// The smallest useful thread pool: runs body(i) for i in [0, count) on
// `threads` threads. Work is handed out by an atomic counter, so callers that
// store results by index get the same output whatever the thread count.
#include <cstddef>
#include <functional>

namespace mlgo {

/// `threads` == 0 means one per hardware core. Exceptions thrown by `body` are
/// rethrown (the first one) after all threads have stopped.
void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)> &body);

/// The thread count to use for a --threads value (0 = all cores).
unsigned resolveThreadCount(unsigned requested);

}  // namespace mlgo
