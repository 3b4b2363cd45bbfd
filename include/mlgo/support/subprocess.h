#pragma once
// Runs a program and waits for it, with a timeout, capturing its stderr.
// Thread-safe (several threads may run programs at once): files are opened in
// the parent and handed over as descriptors, and the wait polls instead of
// using process-wide alarms.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

struct ProcessOutcome {
  bool started = false;
  bool timedOut = false;
  int exitCode = -1;   ///< when it exited normally
  int signal = 0;      ///< when a signal ended it
  std::string error;   ///< why it could not start
  std::string stderrText;  ///< the first 64 KiB of its stderr
  bool succeeded() const { return started && !timedOut && signal == 0 && exitCode == 0; }
};

/// What a timeout measures.
enum class TimeoutClock {
  Wall,  ///< time passed
  /// CPU time the process used (user and system, its finished children's
  /// included), so that a process the machine's load slows down, or a
  /// `nice -n 19` run starves, is not taken for a hung one; time passed is
  /// still bounded, at kCpuTimeoutWallFactor times the timeout, for a
  /// process that waits on something forever.
  Cpu,
};
inline constexpr int kCpuTimeoutWallFactor = 20;

/// CPU time (user and system) a live process has used, with its children it
/// has waited for; zero for a process that is gone.
std::chrono::milliseconds processCpuTime(int pid);

/// CPU time (user and system) the main thread of a live process (the one
/// whose id is the process's) has used; zero for a process that is gone.
/// What a process that works on its main thread has spent on its work,
/// without its helper threads: a watchdog that wakes every few milliseconds
/// keeps the process's time moving while its work stands still.
std::chrono::milliseconds mainThreadCpuTime(int pid);

/// The environment for a child whose stderr is captured: this process's,
/// with LIBC_FATAL_STDERR_=1. Without it glibc writes its fatal messages
/// (heap corruption found, a stack smashed) to the terminal, /dev/tty, past
/// the captured stderr, where they stand without saying which program or
/// compile they come from.
class CapturedStderrEnvironment {
 public:
  CapturedStderrEnvironment();
  char *const *get() { return pointers_.data(); }  ///< for posix_spawn

 private:
  std::vector<std::string> entries_;
  std::vector<char *> pointers_;
};

/// `argv[0]` is the program path. stdin and stdout are /dev/null unless
/// `stdoutPath` names a file to write. `timeout` of zero waits forever.
ProcessOutcome runProcess(const std::vector<std::string> &argv, std::chrono::milliseconds timeout,
                          const std::string &stdoutPath = "", TimeoutClock clock = TimeoutClock::Wall);

/// The full path of `name` as the shell would find it on PATH (a name with a
/// '/' is taken as a path), if it is an executable file.
std::optional<std::string> findProgramOnPath(const std::string &name);

}  // namespace mlgo
