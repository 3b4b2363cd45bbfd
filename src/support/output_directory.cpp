#include "mlgo/support/output_directory.h"

#include <algorithm>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/file.h>
#include <unistd.h>

#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

std::string holderDescription(const std::string &command) {
  char host[256] = "unknown host";
  ::gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return "mlgo " + command + " (pid " + std::to_string(::getpid()) + " on " + host + ", started " + when + ")";
}

std::string readHolder(int fd) {
  char buffer[512];
  const ssize_t length = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (length <= 0) return "another mlgo process";
  std::string text(buffer, static_cast<size_t>(length));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text.empty() ? "another mlgo process" : text;
}

/// What every run writes into its output, whatever the command: its
/// manifest, TensorBoard event files, and the temporary files of atomic
/// writes (LLVM's writeToOutput: NAME.temp-stream-XXXXXX).
const std::vector<std::string> kEveryRunsEntries{"manifest.json", "events.out.tfevents.*", "*.temp-stream-*"};

bool matchesAny(const std::string &name, const std::vector<std::string> &patterns) {
  for (const std::string &pattern : patterns)
    if (::fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0) return true;
  return false;
}

/// The first entry of `directory` that no run of `command` writes (a
/// user's file, another command's output); empty when there is none or the
/// command's entries are not known.
std::string foreignEntry(const fs::path &directory, const std::vector<std::string> &ownEntries) {
  if (ownEntries.empty()) return "";
  std::vector<std::string> names;
  for (const fs::directory_entry &entry : fs::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names)
    if (name != OutputDirectoryLock::kLockFile && !matchesAny(name, ownEntries) &&
        !matchesAny(name, kEveryRunsEntries))
      return name;
  return "";
}

std::string foreignEntryProblem(const fs::path &directory, const std::string &command, const std::string &name) {
  return directory.string() + " holds " + name + ", which no mlgo " + command +
         " run writes: --force removes only an earlier run's files; move " + name +
         " away or choose another output (nothing was removed)";
}

/// --force: removes an earlier run's files, after checking that the
/// directory holds nothing else (a user's file, another command's output,
/// the working directory).
void removeEarlierRun(const fs::path &directory, const std::string &command,
                      const std::vector<std::string> &ownEntries) {
  if (ownEntries.empty()) throw std::logic_error("--force for " + command + " without the names its runs write");
  if (const std::string name = foreignEntry(directory, ownEntries); !name.empty())
    throw UsageError(foreignEntryProblem(directory, command, name));
  for (const fs::directory_entry &entry : fs::directory_iterator(directory))
    if (entry.path().filename() != OutputDirectoryLock::kLockFile) fs::remove_all(entry.path());
}

}  // namespace

bool holdsOutput(const fs::path &directory) {
  std::error_code error;
  for (const fs::directory_entry &entry : fs::directory_iterator(directory, error))
    if (entry.path().filename() != OutputDirectoryLock::kLockFile) return true;
  return false;
}

OutputDirectoryLock OutputDirectoryLock::claim(const fs::path &directory, const std::string &command,
                                               ExistingOutput existing, const std::string &howToContinue,
                                               const std::vector<std::string> &ownEntries) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (!fs::is_directory(directory))
    throw UsageError(directory.string() + ": cannot be created as an output directory" +
                     (error ? ": " + error.message() : ""));
  const fs::path lockPath = directory / kLockFile;
  // O_NOFOLLOW: a planted link must not make mlgo write the holder elsewhere.
  const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    throw UsageError(lockPath.string() + ": cannot open the output lock: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int lockError = errno;
    const std::string holder = readHolder(fd);
    ::close(fd);  // not ours: never truncate the holder's description
    if (lockError == EWOULDBLOCK)
      throw OutputInUse(directory.string() + " is being written by " + holder +
                        "; wait for it to finish or choose another output");
    throw UsageError(lockPath.string() + ": cannot lock: " + std::strerror(lockError));
  }
  OutputDirectoryLock lock(fd);
  // Locked: what was there was left by runs that ended.
  // A file no run writes is named first: --force would refuse it too.
  if (existing == ExistingOutput::Refuse && holdsOutput(directory)) {
    if (const std::string name = foreignEntry(directory, ownEntries); !name.empty())
      throw UsageError(foreignEntryProblem(directory, command, name));
    throw UsageError(directory.string() + " already holds the output of an earlier run; " +
                     (howToContinue.empty() ? std::string("pass --force to replace it") : howToContinue) +
                     ", or choose another output");
  }
  if (existing == ExistingOutput::Replace) removeEarlierRun(directory, command, ownEntries);
  const std::string holder = holderDescription(command) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) < 0)
    throw UsageError(lockPath.string() + ": cannot write the output lock: " + std::strerror(errno));
  return lock;
}

OutputDirectoryLock::OutputDirectoryLock(OutputDirectoryLock &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

OutputDirectoryLock::~OutputDirectoryLock() {
  if (fd_ < 0) return;
  // The file stays: removing it would let a third process lock a new inode
  // while a second one still holds the old.
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::close(fd_);
}

}  // namespace mlgo
