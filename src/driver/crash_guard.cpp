#include "mlgo/driver/crash_guard.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <list>
#include <mutex>
#include <new>
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <thread>
#include <time.h>

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>

#include "mlgo/support/subprocess.h"

namespace mlgo {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTimeoutSignal = SIGUSR2;

/// One per thread that has run a contained body. Fields the signal handler
/// and the watchdog read are atomics so both are async-signal-safe.
///
/// A run's timeout counts the CPU time of its thread, not time passed: a
/// compile that a loaded machine or `nice -n 19` slows down is not a hung one,
/// and whether it timed out must not depend on what else the machine ran.
/// Time passed still ends a run, at kCpuTimeoutWallFactor times the timeout,
/// for a thread that waits on something forever.
struct ThreadSlot {
  pthread_t thread;
  clockid_t cpuClock;                        ///< the thread's CPU-time clock
  std::atomic<uint64_t> generation{0};       ///< bumped at every contained run
  std::atomic<int64_t> cpuDeadlineNanos{0};  ///< on cpuClock; 0: not armed
  std::atomic<int64_t> wallDeadlineNanos{0};
  std::atomic<uint64_t> interruptGeneration{~0ull};

  bool pastDeadline(int64_t wallNow, int64_t graceNanos) const;
};

// Never destroyed: the watchdog thread runs until the process ends, also
// while static destructors run.
std::mutex &gSlotsMutex = *new std::mutex;
std::list<ThreadSlot> &gSlots = *new std::list<ThreadSlot>;  // a list: slots never move

thread_local ThreadSlot *tlsSlot = nullptr;
thread_local bool tlsInContainedRun = false;
thread_local FailureKind tlsForcedFailure = FailureKind::None;
thread_local std::string tlsFailureMessage;

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

/// -1 when the clock cannot be read (its thread has ended).
int64_t cpuNanos(clockid_t clock) {
  timespec now{};
  if (clock_gettime(clock, &now) != 0) return -1;
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

bool ThreadSlot::pastDeadline(int64_t wallNow, int64_t graceNanos) const {
  const int64_t cpuDeadline = cpuDeadlineNanos.load();
  if (cpuDeadline == 0) return false;
  if (wallNow >= wallDeadlineNanos.load() + graceNanos) return true;
  const int64_t cpuNow = cpuNanos(cpuClock);
  return cpuNow >= 0 && cpuNow >= cpuDeadline + graceNanos;
}

[[noreturn]] void leaveContainedRun(FailureKind kind, const std::string &message) {
  tlsForcedFailure = kind;
  tlsFailureMessage = message;
  llvm::CrashRecoveryContext::GetCurrent()->HandleExit(1);
}

void fatalErrorHandler(void *, const char *reason, bool) {
  if (tlsInContainedRun && llvm::CrashRecoveryContext::GetCurrent()) {
    tlsForcedFailure = FailureKind::FatalError;
    tlsFailureMessage = reason;
    llvm::CrashRecoveryContext::GetCurrent()->HandleExit(1);
  }
  // Outside a contained run this is a bug in mlgo itself: fail loudly.
  ::write(2, "mlgo: LLVM fatal error: ", 24);
  ::write(2, reason, std::strlen(reason));
  ::write(2, "\n", 1);
  std::abort();
}

void timeoutSignalHandler(int) {
  ThreadSlot *slot = tlsSlot;
  if (!slot || !tlsInContainedRun) return;
  // Only the run the watchdog meant: the thread may have moved on already.
  if (slot->interruptGeneration.load() != slot->generation.load()) return;
  if (!llvm::CrashRecoveryContext::GetCurrent()) return;
  tlsForcedFailure = FailureKind::Timeout;
  llvm::CrashRecoveryContext::GetCurrent()->HandleExit(1);
}

void watchdogLoop() {
  const int64_t grace = std::chrono::duration_cast<std::chrono::nanoseconds>(kHardTimeoutGrace).count();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int64_t now = nowNanos();
    std::lock_guard<std::mutex> lock(gSlotsMutex);
    for (ThreadSlot &slot : gSlots) {
      if (!slot.pastDeadline(now, grace)) continue;
      uint64_t generation = slot.generation.load();
      if (slot.interruptGeneration.load() == generation) continue;  // already sent
      slot.interruptGeneration.store(generation);
      pthread_kill(slot.thread, kTimeoutSignal);
    }
  }
}

void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    llvm::install_fatal_error_handler(fatalErrorHandler, nullptr);
    struct sigaction action {};
    action.sa_handler = timeoutSignalHandler;
    // SA_NODEFER: the handler leaves by longjmp, so the signal must not stay
    // blocked for the rest of the thread's life.
    action.sa_flags = SA_NODEFER | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(kTimeoutSignal, &action, nullptr);
    std::thread(watchdogLoop).detach();
  });
}

ThreadSlot &currentSlot() {
  if (!tlsSlot) {
    std::lock_guard<std::mutex> lock(gSlotsMutex);
    gSlots.emplace_back();
    gSlots.back().thread = pthread_self();
    pthread_getcpuclockid(pthread_self(), &gSlots.back().cpuClock);
    tlsSlot = &gSlots.back();
  }
  return *tlsSlot;
}

std::string formatSeconds(std::chrono::milliseconds duration) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g s", duration.count() / 1000.0);
  return buffer;
}

const char *signalName(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "a signal";
  }
}

/// The stack contained runs execute on, one per thread. A run left by a
/// crash, a fatal error or a timeout abandons its frames, and with them
/// objects LLVM had linked into process-wide lists: every
/// StandardInstrumentations (clang's backend makes one on its stack) puts two
/// TimerGroups into LLVM's global list. Were that memory reused, the next
/// compile's list updates would write into its live frames and corrupt it
/// silently. So a failed run's stack is retired, never reused; it stays
/// mapped, and what still points into it reads and writes dead memory only.
class RunStack {
 public:
  static constexpr size_t kSize = size_t{16} << 20;
  static constexpr size_t kGuard = 64 << 10;

  /// Runs `run` on this thread's stack.
  void enter(void (*run)()) {
    if (!base_) allocate();
    ucontext_t callee;
    getcontext(&callee);
    callee.uc_stack.ss_sp = base_;
    callee.uc_stack.ss_size = kSize;
    callee.uc_link = &caller_;
    makecontext(&callee, run, 0);
    swapcontext(&caller_, &callee);
  }
  void retire() { base_ = nullptr; }

 private:
  void allocate() {
    // Only the pages a compile touches cost memory; the guard at the low end
    // turns an overflow into a crash rather than a write into other memory.
    void *memory = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                        -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    mprotect(memory, kGuard, PROT_NONE);
    base_ = memory;
  }
  void *base_ = nullptr;
  ucontext_t caller_;
};

thread_local RunStack tlsRunStack;
thread_local const std::function<void()> *tlsRunBody = nullptr;
thread_local llvm::CrashRecoveryContext *tlsRunContext = nullptr;
thread_local bool tlsRunCompleted = false;

void runBodyOnRunStack() { tlsRunCompleted = tlsRunContext->RunSafely([] { (*tlsRunBody)(); }); }

}  // namespace

ContainedOutcome runContained(const std::function<void()> &body, std::chrono::milliseconds timeout) {
  initializeOnce();
  ThreadSlot &slot = currentSlot();
  tlsForcedFailure = FailureKind::None;
  tlsFailureMessage.clear();
  slot.generation.fetch_add(1);
  const int64_t timeoutNanos = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
  slot.wallDeadlineNanos.store(nowNanos() + timeoutNanos * kCpuTimeoutWallFactor);
  slot.cpuDeadlineNanos.store(timeout.count() > 0 ? cpuNanos(CLOCK_THREAD_CPUTIME_ID) + timeoutNanos : 0);
  const bool nested = tlsInContainedRun;
  tlsInContainedRun = true;
  llvm::CrashRecoveryContext context;
  bool completed;
  if (nested) {
    // Already on the run stack: entering it again would overwrite the outer run.
    completed = context.RunSafely([&] { body(); });
  } else {
    tlsRunBody = &body;
    tlsRunContext = &context;
    tlsRunStack.enter(runBodyOnRunStack);
    completed = tlsRunCompleted;
    if (!completed) tlsRunStack.retire();
  }
  tlsInContainedRun = nested;
  const bool usedItsCpuTime = cpuNanos(CLOCK_THREAD_CPUTIME_ID) >= slot.cpuDeadlineNanos.load();
  slot.cpuDeadlineNanos.store(0);

  ContainedOutcome outcome;
  if (completed) return outcome;
  outcome.failure = tlsForcedFailure;
  outcome.message = tlsFailureMessage;
  if (outcome.failure == FailureKind::Timeout) {
    if (outcome.message.empty())
      outcome.message = usedItsCpuTime ? "ran past the timeout of " + formatSeconds(timeout) + " of CPU time"
                                       : "waited past " + std::to_string(kCpuTimeoutWallFactor) +
                                             " times the timeout of " + formatSeconds(timeout);
  } else if (outcome.failure == FailureKind::None) {
    outcome.failure = FailureKind::Crash;
    const int code = context.RetCode;
    outcome.message = code > 128 ? std::string("crashed with ") + signalName(code - 128)
                                 : "crashed (exit code " + std::to_string(code) + ")";
  }
  return outcome;
}

void makeCrashSignalsFatal() {
  initializeOnce();  // CrashRecoveryContext::Enable() installs its handlers once; undo them after
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTRAP}) std::signal(signal, SIG_DFL);
}

void checkContainedDeadline() {
  if (!tlsInContainedRun || !tlsSlot) return;
  if (tlsSlot->pastDeadline(nowNanos(), 0)) leaveContainedRun(FailureKind::Timeout, "");
}

void failContainedRun(const std::string &message) {
  if (!tlsInContainedRun || !llvm::CrashRecoveryContext::GetCurrent()) return;
  leaveContainedRun(FailureKind::CompileError, message);
}

}  // namespace mlgo
