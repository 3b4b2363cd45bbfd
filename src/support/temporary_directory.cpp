#include "mlgo/support/temporary_directory.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mlgo {

namespace fs = std::filesystem;

namespace {

constexpr const char *kLockFile = ".mlgo-lock";

/// The pid in "<prefix>-<pid>", or 0 when the name is not of that form.
pid_t pidInName(const std::string &name, const std::string &prefix) {
  const std::string start = prefix + "-";
  if (name.size() <= start.size() || name.compare(0, start.size(), start) != 0) return 0;
  const std::string digits = name.substr(start.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return pid_t(std::stol(digits));
}

bool processGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

/// Whether no process holds the directory's lock (or it has none: a run of
/// an mlgo before the lock). A process in another pid namespace that looks
/// gone still holds its lock.
bool lockFree(const fs::path &directory) {
  const int fd = ::open((directory / kLockFile).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free;
}

/// This user's own directory, not a link: never remove another's files.
bool ownDirectory(const fs::path &path) {
  struct stat status;
  return ::lstat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode) && status.st_uid == ::geteuid();
}

}  // namespace

std::vector<fs::path> leftTemporaryDirectories(const std::string &prefix) {
  std::vector<fs::path> left;
  std::error_code error;
  for (fs::directory_iterator it(fs::temp_directory_path(error), error), end; !error && it != end;
       it.increment(error)) {
    const pid_t pid = pidInName(it->path().filename().string(), prefix);
    // A live pid is a running run's (or, reused, no harm in waiting).
    if (pid > 0 && processGone(pid) && ownDirectory(it->path()) && lockFree(it->path())) left.push_back(it->path());
  }
  return left;
}

RunTemporaryDirectory::RunTemporaryDirectory(const std::string &prefix) {
  std::error_code ignored;
  for (const fs::path &left : leftTemporaryDirectories(prefix)) fs::remove_all(left, ignored);
  path_ = fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  // Left by an ended process that had this pid before: its files are stale.
  if (ownDirectory(path_) && lockFree(path_)) fs::remove_all(path_, ignored);
  fs::create_directories(path_);
  lock_ = ::open((path_ / kLockFile).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock_ >= 0 && ::flock(lock_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_);
    lock_ = -1;
  }
}

RunTemporaryDirectory::~RunTemporaryDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  if (lock_ >= 0) ::close(lock_);
}

}  // namespace mlgo
