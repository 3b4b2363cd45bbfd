#include "mlgo/support/file_lock.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "mlgo/support/errors.h"

namespace mlgo {

FileLock::FileLock(const std::filesystem::path &file) {
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw InputError(describeInputProblem(file.string(), "", std::string("cannot lock: ") + std::strerror(errno)));
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace mlgo
