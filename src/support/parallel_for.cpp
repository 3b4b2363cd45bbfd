#include "mlgo/support/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <llvm/Support/ThreadPool.h>

namespace mlgo {

unsigned resolveThreadCount(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)> &body) {
  unsigned workers = static_cast<unsigned>(std::min<size_t>(resolveThreadCount(threads), count));
  std::atomic<size_t> next{0};
  std::exception_ptr firstError;
  std::mutex errorMutex;
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!firstError) firstError = std::current_exception();
        next = count;  // stop handing out work
      }
    }
  };
  if (workers <= 1) {
    work();
  } else {
    // LLVM's pool, sized for this call: each worker takes the next index when
    // it is free, so long and short modules balance across the threads.
    llvm::StdThreadPool pool(llvm::hardware_concurrency(workers));
    for (unsigned t = 0; t < workers; ++t) pool.async(work);
    pool.wait();
  }
  if (firstError) std::rethrow_exception(firstError);
}

}  // namespace mlgo
