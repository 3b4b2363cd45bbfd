#include "mlgo/support/subprocess.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <sstream>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace mlgo {

namespace {
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// The sum of the clock-tick fields 14 to `lastField` of a /proc stat file
/// (14 utime, 15 stime, 16 and 17 the waited-for children's), counted after
/// the parenthesized name, which may hold spaces.
std::chrono::milliseconds cpuTimeFromStat(const std::string &path, int lastField) {
  std::ifstream stat(path);
  const std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t nameEnd = line.rfind(')');
  if (nameEnd == std::string::npos) return std::chrono::milliseconds(0);
  std::istringstream fields(line.substr(nameEnd + 1));
  std::string field;
  long long ticks = 0;
  for (int index = 3; fields >> field && index <= lastField; ++index)  // field 3 is the state
    if (index >= 14) ticks += std::atoll(field.c_str());
  return std::chrono::milliseconds(ticks * 1000 / ::sysconf(_SC_CLK_TCK));
}

}  // namespace

CapturedStderrEnvironment::CapturedStderrEnvironment() {
  constexpr const char *kFatalOnStderr = "LIBC_FATAL_STDERR_=";
  for (char **entry = environ; *entry; ++entry)
    if (std::strncmp(*entry, kFatalOnStderr, std::strlen(kFatalOnStderr)) != 0) entries_.emplace_back(*entry);
  entries_.push_back(std::string(kFatalOnStderr) + "1");
  for (std::string &entry : entries_) pointers_.push_back(entry.data());
  pointers_.push_back(nullptr);
}

std::chrono::milliseconds processCpuTime(int pid) {
  return cpuTimeFromStat("/proc/" + std::to_string(pid) + "/stat", 17);
}

std::chrono::milliseconds mainThreadCpuTime(int pid) {
  const std::string id = std::to_string(pid);
  return cpuTimeFromStat("/proc/" + id + "/task/" + id + "/stat", 15);
}

ProcessOutcome runProcess(const std::vector<std::string> &argv, std::chrono::milliseconds timeout,
                          const std::string &stdoutPath, TimeoutClock clock) {
  ProcessOutcome outcome;
  Descriptor input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  Descriptor output(stdoutPath.empty() ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
                                       : ::open(stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  // stderr goes to an anonymous temporary file: no pipe to drain while waiting.
  Descriptor errors(::open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (input.get() < 0 || output.get() < 0 || errors.get() < 0) {
    outcome.error = std::string("cannot set up the process's files: ") + std::strerror(errno);
    return outcome;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, output.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, errors.get(), 2);
  std::vector<char *> args;
  for (const std::string &arg : argv) args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  CapturedStderrEnvironment environment;
  const int status = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environment.get());
  posix_spawn_file_actions_destroy(&actions);
  if (status != 0) {
    outcome.error = "cannot start " + argv[0] + ": " + std::strerror(status);
    return outcome;
  }
  outcome.started = true;
  const auto deadline =
      std::chrono::steady_clock::now() + (clock == TimeoutClock::Cpu ? timeout * kCpuTimeoutWallFactor : timeout);
  auto pastTimeout = [&] {
    if (timeout.count() <= 0) return false;
    if (std::chrono::steady_clock::now() > deadline) return true;
    return clock == TimeoutClock::Cpu && processCpuTime(pid) > timeout;
  };
  int waitStatus = 0;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
    const pid_t done = ::waitpid(pid, &waitStatus, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      outcome.error = std::string("waitpid: ") + std::strerror(errno);
      return outcome;
    }
    if (pastTimeout()) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &waitStatus, 0);
      outcome.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(pause);
  }
  if (WIFEXITED(waitStatus)) outcome.exitCode = WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) outcome.signal = WTERMSIG(waitStatus);
  char buffer[65536];
  const ssize_t got = ::pread(errors.get(), buffer, sizeof buffer, 0);
  if (got > 0) outcome.stderrText.assign(buffer, static_cast<size_t>(got));
  return outcome;
}

std::optional<std::string> findProgramOnPath(const std::string &name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? std::optional<std::string>(name) : std::nullopt;
  const char *path = std::getenv("PATH");
  std::string directories = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= directories.size()) {
    size_t end = directories.find(':', begin);
    if (end == std::string::npos) end = directories.size();
    const std::string directory = end > begin ? directories.substr(begin, end - begin) : ".";
    const std::string candidate = directory + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return std::nullopt;
}

}  // namespace mlgo
