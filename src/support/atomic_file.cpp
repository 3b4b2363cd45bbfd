#include "mlgo/support/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <fcntl.h>

#include "mlgo/support/errors.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>

namespace mlgo {

namespace {

/// Replaces `path` by a complete new file. LLVM's writer: a unique temporary
/// beside the target (O_EXCL), removed on a fatal signal, then renamed over
/// it. It writes "-" to stdout, which the library never does, so such a name
/// is taken as the file "./-".
void replaceFile(const std::filesystem::path &path, std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code noDirectory;
  if (path.has_parent_path() && !fs::create_directories(path.parent_path(), noDirectory) && noDirectory)
    throw std::runtime_error("cannot write " + path.string() + ": cannot make its directory " +
                             path.parent_path().string() + ": " + noDirectory.message());
  const fs::path target = path == "-" ? fs::path(".") / path : path;
  llvm::Error error = llvm::writeToOutput(target.string(), [&](llvm::raw_ostream &out) {
    out.write(content.data(), content.size());
    return llvm::Error::success();
  });
  if (error) throw std::runtime_error("cannot write " + target.string() + ": " + llvm::toString(std::move(error)));
}

/// Writes into an existing special file (a device, a named pipe, a socket)
/// the way clang does for `-o /dev/null`: opened and written, never replaced.
void writeThrough(const std::filesystem::path &path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(n < 0 ? error : EIO));
    }
    written += size_t(n);
  }
  if (::close(fd) != 0 && errno != EINTR)
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

bool isSpecialFile(const std::filesystem::path &path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);  // follows links, as clang's check does
  if (error || !fs::exists(status)) return false;
  return !fs::is_regular_file(status) && !fs::is_directory(status);
}

void writeFileAtomically(const std::filesystem::path &path, std::string_view content) {
  // A directory standing where the file goes was put there by the user, as
  // main() takes a path of the wrong kind: bad input, named in mlgo's words.
  if (std::filesystem::is_directory(path))
    throw InputError(describeInputProblem(path.string(), "", "a directory, where a file is to be written"));
  replaceFile(path, content);
}

void writeOutputFile(const std::filesystem::path &path, std::string_view content) {
  if (isSpecialFile(path)) return writeThrough(path, content);
  writeFileAtomically(path, content);
}

void writeFileInside(const std::filesystem::path &root, const std::filesystem::path &relative,
                     std::string_view content) {
  namespace fs = std::filesystem;
  if (relative.is_absolute() || relative.empty())
    throw InputError(describeInputProblem(relative.string(), "", "must be a relative path inside " + root.string()));
  fs::path directory = root;
  for (auto part = relative.begin(); part != relative.end() && std::next(part) != relative.end(); ++part) {
    if (*part == ".." || *part == ".")
      throw InputError(describeInputProblem(relative.string(), "", "must stay inside " + root.string()));
    directory /= *part;
    if (fs::is_symlink(directory))
      throw InputError(describeInputProblem(directory.string(), "",
                                            "is a symbolic link: refusing to write through it out of " +
                                                root.string()));
  }
  // Untrusted names never reach a device: whatever stands at the name is replaced.
  replaceFile(root / relative, content);
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

std::filesystem::path linkTarget(const std::filesystem::path &path) {
  namespace fs = std::filesystem;
  fs::path file = fs::absolute(path);
  std::error_code error;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(file, error)); ++hops) {
    const fs::path target = fs::read_symlink(file, error);
    if (error) break;
    file = target.is_absolute() ? target : file.parent_path() / target;
  }
  const fs::path directory = fs::canonical(file.parent_path(), error);
  return error ? file.lexically_normal() : directory / file.filename();
}

std::string regularFileProblem(const std::filesystem::path &path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  switch (status.type()) {
    case fs::file_type::regular: return "";
    case fs::file_type::not_found: return "missing";
    case fs::file_type::directory: return "a directory, not a file";
    case fs::file_type::fifo: return "a named pipe, not a regular file (never read: it could block the run)";
    case fs::file_type::character:
    case fs::file_type::block: return "a device, not a regular file (never read)";
    default: return error ? "cannot be read: " + error.message() : "not a regular file";
  }
}

void requireRegularFile(const std::filesystem::path &path) {
  const std::string problem = regularFileProblem(path);
  if (!problem.empty()) throw InputError(describeInputProblem(path.string(), "", problem));
}

std::string readFile(const std::filesystem::path &path) {
  requireRegularFile(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(describeInputProblem(path.string(), "", "cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(describeInputProblem(path.string(), "", "read error"));
  return buffer.str();
}

}  // namespace mlgo
