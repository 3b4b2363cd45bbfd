#pragma once
// An exclusive lock on a file (flock), held for this object's life. A
// process that dies releases it, so a killed compile never leaves what the
// lock guards locked.
#include <filesystem>

namespace mlgo {

class FileLock {
 public:
  /// Creates `file` when missing and waits for the lock. Throws InputError
  /// naming the file when it cannot be opened.
  explicit FileLock(const std::filesystem::path &file);
  ~FileLock();
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

 private:
  int fd_ = -1;
};

}  // namespace mlgo
