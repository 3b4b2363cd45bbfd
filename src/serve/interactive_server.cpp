#include "mlgo/serve/interactive_server.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/serve/training_log.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/trace/trace_writer.h"

namespace mlgo::serve {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Thrown out of a blocking call when options.stop is set.
struct Interrupted {};

bool stopRequested(const ServeOptions &options) { return options.stop && options.stop->load(); }

/// A pipe end the server holds; closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

/// Opening a pipe blocks until the other side opens it too.
int openPipe(const fs::path &path, int flags, const ServeOptions &options) {
  for (;;) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR)
      throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
    if (stopRequested(options)) throw Interrupted{};
  }
}

/// Buffered reading from the compiler's pipe.
class PipeReader {
 public:
  PipeReader(int fd, const ServeOptions &options) : fd_(fd), options_(options) {}

  /// False at end of file before any byte of the line. A partial last line
  /// (end of file before '\n') is returned with `complete` false.
  bool readLine(std::string &line, bool &complete) {
    line.clear();
    for (;;) {
      if (begin_ == buffer_.size() && !fill()) {
        complete = false;
        return !line.empty();
      }
      const char *start = buffer_.data() + begin_;
      const void *newline = std::memchr(start, '\n', buffer_.size() - begin_);
      if (newline) {
        const size_t length = static_cast<const char *>(newline) - start;
        line.append(start, length);
        begin_ += length + 1;
        complete = true;
        return true;
      }
      line.append(start, buffer_.size() - begin_);
      begin_ = buffer_.size();
    }
  }

  /// Reads exactly `size` bytes; false when the pipe ends first.
  bool readExactly(char *out, size_t size) {
    while (size > 0) {
      if (begin_ == buffer_.size() && !fill()) return false;
      const size_t take = std::min(size, buffer_.size() - begin_);
      std::memcpy(out, buffer_.data() + begin_, take);
      begin_ += take;
      out += take;
      size -= take;
    }
    return true;
  }

 private:
  bool fill() {
    buffer_.resize(1 << 16);
    begin_ = 0;
    for (;;) {
      const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
      if (got > 0) {
        buffer_.resize(static_cast<size_t>(got));
        return true;
      }
      if (got == 0 || errno != EINTR) {
        buffer_.clear();
        return false;
      }
      if (stopRequested(options_)) throw Interrupted{};
    }
  }

  int fd_;
  const ServeOptions &options_;
  std::vector<char> buffer_;
  size_t begin_ = 0;
};

/// False when the compiler has gone (EPIPE). SIGPIPE is blocked on this
/// thread while serving (see SigpipeBlocked); a pending one is consumed.
bool writeAll(int fd, const char *data, size_t size, const ServeOptions &options) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written > 0) {
      data += written;
      size -= static_cast<size_t>(written);
      continue;
    }
    if (errno == EINTR) {
      if (stopRequested(options)) throw Interrupted{};
      continue;
    }
    if (errno == EPIPE) {
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      const timespec now{0, 0};
      sigtimedwait(&pipe, nullptr, &now);
    }
    return false;
  }
  return true;
}

/// A compiler that dies between our reading its observation and our answer
/// must not kill the server with SIGPIPE: blocked on this thread meanwhile.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &previous_);
  }
  ~SigpipeBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

 private:
  sigset_t previous_;
};

/// Creates the named pipe when missing; true when it did.
bool ensurePipe(const fs::path &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISFIFO(info.st_mode))
      throw UsageError("channel " + path.string() + " exists and is not a named pipe");
    return false;
  }
  if (::mkfifo(path.c_str(), 0600) != 0)
    throw UsageError("cannot create channel " + path.string() + ": " + std::strerror(errno));
  return true;
}

/// Replaces the pipe at `path` by a fresh one with the same permissions. The
/// session keeps its ends of the old pipe; a compiler that starts now opens
/// the new one and waits for the next session instead of joining this one
/// (or the one that just ended, before the server closed its ends).
void renewPipe(const fs::path &path) {
  struct stat info;
  const mode_t mode = ::stat(path.c_str(), &info) == 0 ? (info.st_mode & 0777) : 0600;
  ::unlink(path.c_str());
  if (::mkfifo(path.c_str(), mode) != 0)
    throw std::runtime_error("cannot renew channel " + path.string() + ": " + std::strerror(errno));
}

/// Throws InputError naming `source` unless the compiler asks for one
/// answer of the type the policy's kind of decision gives.
void requireAdvice(const TensorSpecification &advice, trace::DecisionKind kind, const std::string &source) {
  const bool real = advice.type == "float" || advice.type == "double";
  switch (kind) {
    case trace::DecisionKind::YesNo:
    case trace::DecisionKind::Position:
      if (advice.elementCount() == 1 && !real) return;
      throw InputError(
          describeInputProblem(source, "header: advice", "expected one integer decision, got " + advice.type));
    case trace::DecisionKind::Continuous:
      if (advice.elementCount() == 1 && real) return;
      throw InputError(describeInputProblem(source, "header: advice", "expected one real value, got " + advice.type));
  }
}

/// The decision in the advice tensor's type, little-endian as the compiler
/// on this machine reads it.
std::vector<char> encodeAdvice(const TensorSpecification &advice, trace::DecisionKind kind,
                               const ChannelPolicy::Decision &decision) {
  std::vector<char> bytes(advice.byteSize(), 0);
  switch (kind) {
    case trace::DecisionKind::YesNo:
    case trace::DecisionKind::Position:
      std::memcpy(bytes.data(), &decision.action, std::min(bytes.size(), sizeof decision.action));
      break;
    case trace::DecisionKind::Continuous:
      if (advice.type == "double") {
        const double value = decision.value;
        std::memcpy(bytes.data(), &value, std::min(bytes.size(), sizeof value));
      } else {
        std::memcpy(bytes.data(), &decision.value, std::min(bytes.size(), sizeof decision.value));
      }
      break;
  }
  return bytes;
}

void record(trace::ModuleTrace &trace, trace::DecisionKind kind, const int64_t *words,
            const ChannelPolicy::Decision &decision) {
  switch (kind) {
    case trace::DecisionKind::YesNo:
    case trace::DecisionKind::Position:
      trace.addDecision(words, decision.defaultAction, decision.action);
      return;
    case trace::DecisionKind::Continuous:
      trace.addContinuousDecision(words, decision.defaultValue, decision.value);
      return;
  }
}

class Session {
 public:
  Session(ChannelPolicy &policy, const ServeOptions &options, size_t index) : policy_(policy), options_(options) {
    report_.index = index;
    trace_.position = index;
    trace_.name = "session-" + std::to_string(index);
    trace_.spec = &policy.decisionSpec();
    trace_.featureCount = policy.decisionSpec().decisionWords();
  }

  void run(int toCompiler, int fromCompiler) {
    const std::string source = options_.channelBase.string() + ".out";
    PipeReader reader(fromCompiler, options_);
    std::string line;
    bool complete = false;
    if (!reader.readLine(line, complete)) {
      report_.problem = "the compiler closed the channel before sending a header";
      return;
    }
    if (!complete) {
      report_.problem = "the compiler closed the channel in the middle of the header (did it crash?)";
      return;
    }
    const LogHeader header = parseLogHeader(line, source);
    const trace::DecisionKind kind = policy_.decisionSpec().kind();
    const TensorSpecification advice = policy_.connect(header, source);
    requireAdvice(advice, kind, source);
    std::vector<char> observation(header.observationBytes() + 1);
    std::vector<int64_t> words(trace_.featureCount);
    while (reader.readLine(line, complete)) {
      if (!complete) {
        report_.problem = "the compiler closed the channel in the middle of a line (did it crash?)";
        return;
      }
      const LogEvent event = parseLogEvent(line, source);
      if (event.kind == LogEvent::Kind::Context) report_.context = event.context;
      if (event.kind != LogEvent::Kind::Observation) continue;
      // The feature bytes, then the '\n' that ends the observation.
      if (!reader.readExactly(observation.data(), observation.size())) {
        report_.problem = "the compiler closed the channel in the middle of observation " +
                          std::to_string(event.id) + " (did it crash?)";
        return;
      }
      if (observation.back() != '\n')
        throw InputError(describeInputProblem(source, "observation " + std::to_string(event.id),
                                              "does not end where the header's feature sizes say it should"));
      const ChannelPolicy::Decision decision = policy_.decide(observation.data(), words.data());
      ++report_.decisions;
      report_.nonzero += decision.action != 0;
      if (options_.traceDirectory) record(trace_, kind, words.data(), decision);
      const std::vector<char> answer = encodeAdvice(advice, kind, decision);
      if (!writeAll(toCompiler, answer.data(), answer.size(), options_)) {
        report_.problem = "the compiler went away before reading decision " + std::to_string(event.id);
        return;
      }
    }
  }

  const SessionReport &report() const { return report_; }
  const trace::ModuleTrace &trace() const { return trace_; }

 private:
  ChannelPolicy &policy_;
  const ServeOptions &options_;
  SessionReport report_;
  trace::ModuleTrace trace_;
};

/// One server per channel: a second one would open the same pipes, split
/// compilations between the two and remove pipes the first still serves.
/// BASE.lock is locked while serving (the kernel releases it when the process
/// ends, kill -9 included) and removed when the server returns.
class ChannelLock {
 public:
  explicit ChannelLock(const fs::path &base) : path_(base.string() + ".lock") {
    for (;;) {
      // O_NOFOLLOW: a planted link must not make the server lock or remove another file.
      fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd_ < 0)
        throw UsageError("cannot create channel " + base.string() + ": cannot open its lock " + path_.string() +
                         ": " + std::strerror(errno));
      if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int lockError = errno;
        ::close(fd_);
        if (lockError == EWOULDBLOCK)
          throw UsageError("channel " + base.string() + " is already served by another mlgo serve (it holds " +
                           path_.string() + "); stop that server or choose another --channel");
        throw UsageError("cannot lock channel " + base.string() + ": " + std::strerror(lockError));
      }
      // A server that was returning may have removed the file between our
      // open and our lock: then the lock is on a file nobody else will see.
      struct stat held, named;
      if (::fstat(fd_, &held) == 0 && ::lstat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
          held.st_dev == named.st_dev)
        return;
      ::close(fd_);
    }
  }
  ChannelLock(const ChannelLock &) = delete;
  ChannelLock &operator=(const ChannelLock &) = delete;
  ~ChannelLock() {
    ::unlink(path_.c_str());
    ::close(fd_);
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

/// Removes the pipes the server created, whatever way it returns.
class CreatedPipes {
 public:
  void add(const fs::path &path) { paths_.push_back(path); }
  ~CreatedPipes() {
    std::error_code ignored;
    for (const fs::path &path : paths_) fs::remove(path, ignored);
  }

 private:
  std::vector<fs::path> paths_;
};

}  // namespace

ServeSummary serveChannel(ChannelPolicy &policy, const ServeOptions &options) {
  const fs::path toCompilerPath = options.channelBase.string() + ".in";
  const fs::path fromCompilerPath = options.channelBase.string() + ".out";
  const ChannelLock served(options.channelBase);
  CreatedPipes created;
  if (ensurePipe(toCompilerPath)) created.add(toCompilerPath);
  if (ensurePipe(fromCompilerPath)) created.add(fromCompilerPath);

  std::unique_ptr<trace::TraceWriter> writer;
  const json header = trace::traceHeader(policy.problem(), policy.decisionSpec());
  if (options.traceDirectory)
    writer = std::make_unique<trace::TraceWriter>(*options.traceDirectory, policy.problem(), header, 1);

  SigpipeBlocked sigpipeBlocked;
  ServeSummary summary;
  try {
    while (options.maxSessions == 0 || summary.sessions < options.maxSessions) {
      if (stopRequested(options)) break;
      // The compiler opens BASE.in first, then BASE.out: the same order here.
      Descriptor toCompiler(openPipe(toCompilerPath, O_WRONLY, options));
      Descriptor fromCompiler(openPipe(fromCompilerPath, O_RDONLY, options));
      renewPipe(toCompilerPath);
      renewPipe(fromCompilerPath);
      Session session(policy, options, summary.sessions);
      session.run(toCompiler.get(), fromCompiler.get());
      ++summary.sessions;
      summary.decisions += session.report().decisions;
      if (!session.report().problem.empty()) ++summary.incompleteSessions;
      if (writer) writer->submit(session.report().index, trace::encodeModule(session.trace()));
      if (options.onSession) options.onSession(session.report());
    }
  } catch (const Interrupted &) {
  }
  if (writer) {
    json description = header;
    description.update(json{{"policy", "served"},
                            {"source", "mlgo serve on channel " + options.channelBase.string()},
                            {"modules_traced", summary.sessions},
                            {"decisions", summary.decisions},
                            {"mlgo_version", MLGO_VERSION}});
    // The server never sees object sizes: no baselines.
    writer->finish(description, json{{"metric", "text"}, {"policy", "default"}, {"sizes", json::object()}});
  }
  return summary;
}

}  // namespace mlgo::serve
