#include "eviction_channel.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "mlgo/support/errors.h"

namespace mlgo::regalloc {

namespace {

constexpr const char *kSource = "LLVM's eviction channel";

std::runtime_error systemError(const std::string &what) {
  return std::runtime_error("eviction channel: " + what + ": " + std::strerror(errno));
}

/// Opens a pipe end for reading and writing: opening never waits for the
/// other side, and LLVM's own opens find one already there.
int openPipeEnd(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw systemError("cannot open " + path);
  // Room for the header and one observation (about 5 KB) whatever the
  // system's default; failing here only leaves the default (64 KB).
  ::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  return fd;
}

}  // namespace

EvictionChannel::EvictionChannel() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mlgo-evict-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) throw systemError("cannot create a directory from " + pattern);
  directory_ = buffer.data();
  base_ = directory_ + "/channel";
  try {
    for (const char *suffix : {".out", ".in"})
      if (::mkfifo((base_ + suffix).c_str(), 0600) != 0) throw systemError("cannot create " + base_ + suffix);
    fromLLVM_ = openPipeEnd(base_ + ".out");
    toLLVM_ = openPipeEnd(base_ + ".in");
  } catch (...) {
    release();  // no destructor runs for a constructor that throws
    throw;
  }
}

EvictionChannel::~EvictionChannel() { release(); }

void EvictionChannel::release() {
  if (fromLLVM_ >= 0) ::close(fromLLVM_);
  if (toLLVM_ >= 0) ::close(toLLVM_);
  fromLLVM_ = toLLVM_ = -1;
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

void EvictionChannel::connect() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
  readAvailable();
  std::string line;
  if (!takeLine(line)) throw InputError(describeInputProblem(kSource, "header", "LLVM wrote no header"));
  header_ = serve::parseLogHeader(line, kSource);
  if (!header_.advice || header_.advice->type != "int64_t" || header_.advice->elementCount() != 1)
    throw InputError(describeInputProblem(kSource, "header: advice", "expected one int64_t index_to_evict"));
}

void EvictionChannel::answerInAdvance(int64_t position) {
  const char *bytes = reinterpret_cast<const char *>(&position);
  size_t written = 0;
  while (written < sizeof position) {
    const ssize_t n = ::write(toLLVM_, bytes + written, sizeof position - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("cannot queue the answer");
    written += static_cast<size_t>(n);
  }
}

bool EvictionChannel::takeObservation(std::string &featureBytes) {
  readAvailable();
  std::string line;
  while (takeLine(line)) {
    const serve::LogEvent event = serve::parseLogEvent(line, kSource);
    if (event.kind != serve::LogEvent::Kind::Observation) continue;
    const size_t size = header_.observationBytes();
    const std::string where = "observation " + std::to_string(event.id);
    // LLVM flushed the whole observation before it read the answer.
    if (pending_.size() < size + 1) throw InputError(describeInputProblem(kSource, where, "cut short"));
    if (pending_[size] != '\n')
      throw InputError(describeInputProblem(kSource, where, "does not end where the header's sizes say"));
    featureBytes.assign(pending_, 0, size);
    pending_.erase(0, size + 1);
    return true;
  }
  // LLVM asked nothing: take the queued answer back (this end also reads).
  int64_t withdrawn;
  size_t taken = 0;
  while (taken < sizeof withdrawn) {
    const ssize_t n = ::read(toLLVM_, reinterpret_cast<char *>(&withdrawn) + taken, sizeof withdrawn - taken);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("cannot withdraw the queued answer");
    taken += static_cast<size_t>(n);
  }
  return false;
}

void EvictionChannel::readAvailable() {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fromLLVM_, buffer, sizeof buffer);
    if (n > 0) {
      pending_.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) throw systemError("cannot read from LLVM");
    return;
  }
}

bool EvictionChannel::takeLine(std::string &line) {
  const size_t end = pending_.find('\n');
  if (end == std::string::npos) return false;
  line.assign(pending_, 0, end);
  pending_.erase(0, end + 1);
  return true;
}

}  // namespace mlgo::regalloc
