#pragma once
// Containment for one compilation: a crash (SIGSEGV, SIGABRT, ...), an LLVM
// fatal error or a hang in one module must never end a run.
//
// Crashes and fatal errors use LLVM's CrashRecoveryContext (what clang uses
// for its in-process cc1). Hangs are ended in two steps: between passes the
// pipeline checks the deadline and leaves cleanly; a single pass that never
// returns gets a signal on its own thread a moment after the deadline, which
// unwinds it the same way a crash is unwound.
//
// A run that is left this way abandons its stack frames, and LLVM links some
// stack objects into process-wide lists (the TimerGroups of the
// StandardInstrumentations clang's backend makes). So each run executes on a
// stack of its own, and a failed run's stack is retired, never reused: the
// next compile's list updates could otherwise write into its live frames.
#include <chrono>
#include <functional>
#include <string>

#include "mlgo/driver/compile_result.h"

namespace mlgo {

struct ContainedOutcome {
  FailureKind failure = FailureKind::None;
  std::string message;
};

/// Runs `body` on the calling thread, on the thread's run stack. `timeout`
/// counts the thread's CPU time (time passed ends the run only at
/// kCpuTimeoutWallFactor times it), so that a run's result does not depend on
/// the machine's load; zero means no limit. `body` must not throw.
ContainedOutcome runContained(const std::function<void()> &body, std::chrono::milliseconds timeout);

/// A safe point inside a contained run (called between passes): leaves the
/// run as timed out when its deadline has passed. Does nothing outside one.
void checkContainedDeadline();

/// Ends the current contained run with a compile error (for errors reported
/// through callbacks that cannot return failure). Outside a contained run it
/// does nothing and returns.
void failContainedRun(const std::string &message);

/// For worker processes (compile_worker.h): crash signals end the process
/// instead of being contained, because a crash inside malloc can leave the
/// heap's locks held and the next allocation would wait forever. Fatal errors
/// and timeouts stay contained (they leave the heap intact).
void makeCrashSignalsFatal();

/// How long after its deadline (CPU time, or time passed for the backstop) a
/// run that did not reach a safe point is interrupted by a signal.
inline constexpr std::chrono::milliseconds kHardTimeoutGrace{1000};

}  // namespace mlgo
