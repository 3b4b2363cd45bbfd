#include "mlgo/support/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <fcntl.h>

#include "mlgo/support/errors.h"

namespace mlgo {

void writeFileAtomically(const std::filesystem::path &path, std::string_view content) {
  namespace fs = std::filesystem;
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  // The pid and a counter keep concurrent writers (threads or processes) from
  // sharing a temporary name.
  static std::atomic<unsigned> counter{0};
  fs::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot create " + temp.string() + ": " + std::strerror(errno));
  const char *data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(saved));
    }
    data += written;
    left -= static_cast<size_t>(written);
  }
  if (::close(fd) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(saved));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot rename " + temp.string() + " to " + path.string() + ": " +
                             std::strerror(saved));
  }
}

void replaceDirectory(const std::filesystem::path &complete, const std::filesystem::path &target) {
  namespace fs = std::filesystem;
  const fs::path old = fs::path(target.string() + ".old");
  if (fs::exists(target)) {
    fs::remove_all(old);
    fs::rename(target, old);
  }
  fs::rename(complete, target);
  fs::remove_all(old);
}

std::filesystem::path existingDirectory(const std::filesystem::path &target) {
  namespace fs = std::filesystem;
  if (fs::is_directory(target)) return target;
  const fs::path old = fs::path(target.string() + ".old");
  if (fs::is_directory(old)) return old;
  return {};
}

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(describeInputProblem(path.string(), "", "cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(describeInputProblem(path.string(), "", "read error"));
  return buffer.str();
}

}  // namespace mlgo
