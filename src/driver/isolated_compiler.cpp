#include "mlgo/driver/isolated_compiler.h"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlgo/driver/compile_worker.h"
#include "mlgo/support/subprocess.h"

extern char **environ;

namespace mlgo {

namespace {

std::string describeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return std::string("died with signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

/// What a worker wrote to its stderr file since the last call, which empties
/// the file (opened with O_APPEND, so the worker writes on from its start).
/// Called only while the worker is idle or dead: nothing is written meanwhile.
std::string takeStderr(int errors) {
  std::string text;
  if (errors < 0) return text;
  char buffer[16384];
  for (ssize_t got; (got = ::pread(errors, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0;)
    text.append(buffer, static_cast<size_t>(got));
  if (!text.empty() && ::ftruncate(errors, 0) != 0) text.clear();  // keep nothing we cannot empty
  return text;
}

/// The end of what a worker that died wrote, for its compile's message:
/// glibc's word on the heap it found corrupted, LLVM's on a fatal error.
std::string lastWords(std::string text) {
  constexpr size_t kKept = 300;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty()) return "";
  if (text.size() > kKept) text = "..." + text.substr(text.size() - kKept);
  for (char &c : text)
    if (c == '\n') c = ' ';
  return "; it wrote: " + text;
}

/// Hands on what a healthy worker wrote (a warning of its compile), as if it
/// had written to our stderr itself.
void forwardToStderr(const std::string &text) {
  for (size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Watches a worker between a request and its reply against the reply
/// timeout: its CPU time past the timeout, the CPU time of its main thread
/// (where a worker compiles) standing still for a whole timeout, or
/// kCpuTimeoutWallFactor timeouts passed. The stall is read from the main
/// thread alone because the worker's own watchdog thread wakes every 50 ms
/// (crash_guard.cpp): its few ticks kept a deadlocked worker's process time
/// moving, so the worker was ended only at the wall bound.
class StallWatch {
 public:
  StallWatch(pid_t pid, std::chrono::milliseconds timeout) : pid_(pid), timeout_(timeout) {
    if (timeout_.count() <= 0) return;
    cpuAtStart_ = processCpuTime(pid_);
    lastWork_ = mainThreadCpuTime(pid_);
    start_ = lastProgress_ = std::chrono::steady_clock::now();
  }

  /// How the worker overran the timeout ("" while it has not), for a message.
  std::string overrun() {
    if (timeout_.count() <= 0) return "";
    const auto now = std::chrono::steady_clock::now();
    const std::chrono::milliseconds work = mainThreadCpuTime(pid_);
    if (work != lastWork_) {
      lastWork_ = work;
      lastProgress_ = now;
    }
    const std::string limit = std::to_string(timeout_.count()) + " ms";
    if (processCpuTime(pid_) - cpuAtStart_ > timeout_) return "did not answer within " + limit + " of CPU time";
    if (now - lastProgress_ > timeout_)
      return "used no CPU time on its main thread for " + limit + " without answering (it is stuck)";
    if (now - start_ > timeout_ * kCpuTimeoutWallFactor)
      return "did not answer within " + std::to_string(kCpuTimeoutWallFactor) + " x " + limit;
    return "";
  }

 private:
  pid_t pid_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds cpuAtStart_{0}, lastWork_{0};
  std::chrono::steady_clock::time_point start_, lastProgress_;
};

}  // namespace

struct IsolatedCompiler::Worker {
  pid_t pid = -1;
  int requests = -1;  ///< our end of the worker's stdin
  int replies = -1;   ///< our end of the worker's stdout
  /// The worker's stderr: an anonymous file (-1: ours, inherited, when none
  /// can be made). What it holds goes to our stderr after each answer; a
  /// worker's last words go into its compile's message instead, not loose to
  /// the terminal, where they would not say which compile died.
  int errors = -1;
  std::string buffered;  ///< bytes read past the last reply line
  bool alive = false;
  size_t answered = 0;  ///< compiles it replied to
  std::string module;   ///< the module of the compile it was started for
};

IsolatedCompiler::IsolatedCompiler(std::vector<std::string> workerCommand, std::chrono::milliseconds replyTimeout,
                                   WorkerReuse reuse)
    : command_(std::move(workerCommand)), replyTimeout_(replyTimeout), reuse_(reuse) {
  std::signal(SIGPIPE, SIG_IGN);
}

IsolatedCompiler::~IsolatedCompiler() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &[thread, worker] : workers_) retire(*worker);
}

size_t IsolatedCompiler::workersStarted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_;
}

size_t IsolatedCompiler::workersLost() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_;
}

int IsolatedCompiler::lose(Worker &worker, std::string &lastStderr) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++lost_;
  return retire(worker, &lastStderr);
}

int IsolatedCompiler::retire(Worker &worker, std::string *lastStderr) {
  if (!worker.alive) return 0;
  ::close(worker.requests);  // end of input: a healthy worker exits on its own
  ::close(worker.replies);
  ::kill(worker.pid, SIGKILL);  // harmless when it already died (not yet reaped)
  int status = 0;
  ::waitpid(worker.pid, &status, 0);  // reaped first: all it wrote is in its file
  std::string written = takeStderr(worker.errors);
  if (lastStderr)
    *lastStderr = std::move(written);
  else
    forwardToStderr(written);
  if (worker.errors >= 0) ::close(worker.errors);
  worker = Worker{};
  return status;
}

IsolatedCompiler::Worker *IsolatedCompiler::workerForThisThread(const std::string &module, std::string &error) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Worker> &slot = workers_[std::this_thread::get_id()];
  if (!slot) slot = std::make_unique<Worker>();
  if (slot->alive && reuse_ == WorkerReuse::OneModule && slot->module != module) retire(*slot);
  if (slot->alive) return slot.get();

  // Pipes with close-on-exec on every end: a worker must not inherit another
  // worker's pipes, or that worker's death would never show as end of file.
  int toWorker[2], fromWorker[2];
  if (::pipe2(toWorker, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return nullptr;
  }
  if (::pipe2(fromWorker, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(toWorker[0]);
    ::close(toWorker[1]);
    return nullptr;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, toWorker[0], 0);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&actions, fromWorker[1], 1);
  const int errors = ::open("/tmp", O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
  if (errors >= 0) posix_spawn_file_actions_adddup2(&actions, errors, 2);
  std::vector<char *> argv;
  for (const std::string &arg : command_) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  CapturedStderrEnvironment environment;
  const int spawned = ::posix_spawn(&pid, command_.front().c_str(), &actions, nullptr, argv.data(),
                                    errors >= 0 ? environment.get() : environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(toWorker[0]);
  ::close(fromWorker[1]);
  if (spawned != 0) {
    error = "cannot start the compile worker " + command_.front() + ": " + std::strerror(spawned);
    ::close(toWorker[1]);
    ::close(fromWorker[0]);
    if (errors >= 0) ::close(errors);
    return nullptr;
  }
  slot->pid = pid;
  slot->requests = toWorker[1];
  slot->replies = fromWorker[0];
  slot->errors = errors;
  slot->buffered.clear();
  slot->alive = true;
  slot->module = module;
  ++started_;
  return slot.get();
}

CompileResult IsolatedCompiler::compile(const CorpusModule &module, const std::string &pipeline,
                                        const std::filesystem::path &object) {
  bool freshWorker = false;
  CompileResult result = compileOnce(module, pipeline, object, freshWorker);
  // A worker dies where its heap is found corrupted, which may be the doing
  // of an earlier compile in it (glibc notices a bad free long after the bad
  // write). Blaming this compile would make its result depend on what the
  // worker did before, so a run's results on the order and the thread count:
  // a crash counts only when it happens again in a worker that compiled
  // nothing before.
  if (result.failure == FailureKind::Crash && !freshWorker) {
    result = compileOnce(module, pipeline, object, freshWorker);
    if (result.failure == FailureKind::Crash) result.message += " (again in a fresh worker)";
  }
  return result;
}

CompileResult IsolatedCompiler::compileOnce(const CorpusModule &module, const std::string &pipeline,
                                            const std::filesystem::path &object, bool &freshWorker) {
  const auto start = std::chrono::steady_clock::now();
  CompileResult result;
  auto fail = [&](FailureKind kind, std::string message) {
    result = CompileResult{};
    result.failure = kind;
    result.message = std::move(message);
    result.seconds = secondsSince(start);
    return result;
  };
  std::string error;
  Worker *worker = workerForThisThread(module.name, error);
  freshWorker = !worker || worker->answered == 0;
  if (!worker) return fail(FailureKind::Crash, error);

  // A worker that died answers nothing: collect its status for the message.
  auto workerDied = [&](const std::string &what) {
    std::string written;
    const int status = lose(*worker, written);
    return fail(FailureKind::Crash, "the compile worker " + describeExit(status) + " " + what +
                                        " (a crash in LLVM; a new worker takes the next compile)" +
                                        lastWords(std::move(written)));
  };

  const std::string request = encodeCompileRequest(module.name, pipeline, object.string()) + "\n";
  for (size_t written = 0; written < request.size();) {
    const ssize_t n = ::write(worker->requests, request.data() + written, request.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return workerDied("before it took the request");
    written += static_cast<size_t>(n);
  }

  // The reply timeout counts the worker's CPU time, as the worker's own
  // timeout does (crash_guard.h): a worker a loaded machine starves is not
  // a hung one, it still gets some CPU. A worker whose CPU time stands still
  // for a whole timeout waits on something that will not come (a deadlock,
  // say on the lock of a heap LLVM corrupted, where its own watchdog cannot
  // run either) and is ended then; time passed, as a last bound, at
  // kCpuTimeoutWallFactor times it. Without a timeout nothing is counted (no
  // read of /proc per compile).
  StallWatch watch(worker->pid, replyTimeout_);
  for (;;) {
    const size_t newline = worker->buffered.find('\n');
    if (newline != std::string::npos) {
      const std::string line = worker->buffered.substr(0, newline);
      worker->buffered.erase(0, newline + 1);
      try {
        CompileResult reply = decodeCompileReply(line);
        ++worker->answered;
        forwardToStderr(takeStderr(worker->errors));
        return reply;
      } catch (const std::exception &e) {
        std::string written;
        lose(*worker, written);
        return fail(FailureKind::Crash,
                    std::string("the compile worker answered garbage: ") + e.what() + lastWords(std::move(written)));
      }
    }
    if (const std::string overrun = watch.overrun(); !overrun.empty()) {
      std::string written;
      lose(*worker, written);
      return fail(FailureKind::Timeout, "the compile worker " + overrun + "; killed" + lastWords(std::move(written)));
    }
    const int waitMs = replyTimeout_.count() > 0 ? 200 : -1;
    pollfd readable{worker->replies, POLLIN, 0};
    const int ready = ::poll(&readable, 1, waitMs);
    if (ready < 0 && errno != EINTR) return workerDied("while compiling");
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(worker->replies, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return workerDied("while compiling " + module.name);
    worker->buffered.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace mlgo
