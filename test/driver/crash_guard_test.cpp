#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <thread>
#include <time.h>

#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Timer.h>

#include "mlgo/driver/crash_guard.h"
#include "mlgo/support/subprocess.h"

using namespace mlgo;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

TEST_CASE("crash guard: a normal body completes", "[driver][containment]") {
  int value = 0;
  ContainedOutcome outcome = runContained([&] { value = 42; }, 5s);
  CHECK(outcome.failure == FailureKind::None);
  CHECK(value == 42);
}

TEST_CASE("crash guard: segfault and abort are contained and the thread goes on", "[driver][containment]") {
  ContainedOutcome segv = runContained(
      [] {
        volatile int *null = nullptr;
        *null = 1;
      },
      5s);
  CHECK(segv.failure == FailureKind::Crash);
  CHECK_THAT(segv.message, Contains("SIGSEGV"));
  ContainedOutcome abortion = runContained([] { std::abort(); }, 5s);
  CHECK(abortion.failure == FailureKind::Crash);
  CHECK_THAT(abortion.message, Contains("SIGABRT"));
  int value = 0;
  CHECK(runContained([&] { value = 7; }, 5s).failure == FailureKind::None);
  CHECK(value == 7);
}

TEST_CASE("crash guard: LLVM fatal errors are contained with their message", "[driver][containment]") {
  ContainedOutcome outcome = runContained([] { llvm::report_fatal_error("did not reach a fixpoint"); }, 5s);
  CHECK(outcome.failure == FailureKind::FatalError);
  CHECK(outcome.message == "did not reach a fixpoint");
}

TEST_CASE("crash guard: a loop that never reaches a safe point is interrupted", "[driver][containment]") {
  ContainedOutcome outcome = runContained(
      [] {
        for (volatile bool spin = true; spin;) {
        }
      },
      200ms);
  CHECK(outcome.failure == FailureKind::Timeout);
  CHECK_THAT(outcome.message, Contains("0.2 s"));
  // The interrupted thread is usable again, and its next run is not hit.
  CHECK(runContained([] { std::this_thread::sleep_for(1500ms); }, 10s).failure == FailureKind::None);
}

/// The calling thread's CPU time.
std::chrono::nanoseconds threadCpuTime() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

TEST_CASE("crash guard: a loop with safe points leaves at the deadline", "[driver][containment]") {
  const auto start = threadCpuTime();
  ContainedOutcome outcome = runContained(
      [] {
        for (;;) checkContainedDeadline();
      },
      100ms);
  CHECK(outcome.failure == FailureKind::Timeout);
  CHECK_THAT(outcome.message, Contains("0.1 s of CPU time"));
  // Left through the safe point, not through the signal a grace period later.
  CHECK(threadCpuTime() - start < kHardTimeoutGrace);
}

TEST_CASE("crash guard: the timeout counts CPU time, and time passed only for a run that waits forever",
          "[driver][containment]") {
  // Waiting 4 times the timeout without computing (a starved compile) is no timeout...
  CHECK(runContained([] { std::this_thread::sleep_for(400ms); }, 100ms).failure == FailureKind::None);
  // ...but waiting on and on ends at kCpuTimeoutWallFactor times it.
  const auto start = std::chrono::steady_clock::now();
  ContainedOutcome outcome = runContained(
      [] {
        for (;;) {
          checkContainedDeadline();
          std::this_thread::sleep_for(5ms);
        }
      },
      50ms);
  CHECK(outcome.failure == FailureKind::Timeout);
  CHECK_THAT(outcome.message, Contains("waited past 20 times the timeout of 0.05 s"));
  CHECK(std::chrono::steady_clock::now() - start >= kCpuTimeoutWallFactor * 50ms);
}

TEST_CASE("crash guard: runs on several threads are contained independently", "[driver][containment]") {
  ContainedOutcome crashed, finished;
  std::thread crashing([&] {
    crashed = runContained(
        [] {
          volatile int *null = nullptr;
          *null = 1;
        },
        5s);
  });
  std::thread working([&] { finished = runContained([] { std::this_thread::sleep_for(50ms); }, 5s); });
  crashing.join();
  working.join();
  CHECK(crashed.failure == FailureKind::Crash);
  CHECK(finished.failure == FailureKind::None);
}

TEST_CASE("crash guard: safe points outside a run do nothing", "[driver][containment]") {
  // Both return normally outside a run, and do not leak into the next one.
  checkContainedDeadline();
  failContainedRun("not in a run");
  int value = 0;
  ContainedOutcome outcome = runContained([&] { value = 1; }, 5s);
  CHECK(outcome.failure == FailureKind::None);
  CHECK(outcome.message.empty());
  CHECK(value == 1);
  ContainedOutcome failed = runContained([] { failContainedRun("reported by a callback"); }, 5s);
  CHECK(failed.failure == FailureKind::CompileError);
  CHECK(failed.message == "reported by a callback");
}

namespace {

constexpr size_t kCanaryWords = 16384;  // 128 KB of stack either side
constexpr uint64_t kCanary = 0x5eed5eed5eed5eedULL;

/// Puts a TimerGroup (which links itself into LLVM's process-wide list, as
/// the StandardInstrumentations clang's backend makes on its stack do) deep in
/// the stack, then crashes with it still linked.
[[gnu::noinline]] void crashWithATimerGroupOnTheStack() {
  volatile uint64_t padding[kCanaryWords / 2];
  for (size_t i = 0; i < kCanaryWords / 2; ++i) padding[i] = i;
  llvm::TimerGroup group("mlgo-test-abandoned", "abandoned by a crash");
  volatile int *null = nullptr;
  *null = static_cast<int>(padding[0]);
}

/// Fills the stack where the abandoned group was with a pattern, makes a new
/// group (which updates the list's links) and counts the words that changed.
[[gnu::noinline]] size_t wordsChangedByANewTimerGroup() {
  volatile uint64_t canary[kCanaryWords];
  for (size_t i = 0; i < kCanaryWords; ++i) canary[i] = kCanary;
  { llvm::TimerGroup group("mlgo-test-live", "made after the crash"); }
  size_t changed = 0;
  for (size_t i = 0; i < kCanaryWords; ++i) changed += canary[i] != kCanary;
  return changed;
}

}  // namespace

TEST_CASE("crash guard: what a failed run left linked into LLVM's lists never writes into later runs",
          "[driver][containment]") {
  CHECK(runContained(crashWithATimerGroupOnTheStack, 5s).failure == FailureKind::Crash);
  size_t changed = 1;
  CHECK(runContained([&] { changed = wordsChangedByANewTimerGroup(); }, 5s).failure == FailureKind::None);
  CHECK(changed == 0);
}
