#pragma once
// A run's scratch directory in the system's temporary folder (TMPDIR, else
// /tmp), for files that must stay out of its outputs (a harvest's pool lives
// in a repository). It is removed when the run ends; a run killed before
// then leaves it behind, and the next run that makes one of the same kind
// removes it.
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo {

class RunTemporaryDirectory {
 public:
  /// Creates TMP/<prefix>-<pid> (e.g. "mlgo-harvest-gate-1234") and holds
  /// its lock, after removing every TMP/<prefix>-<pid> that a run which has
  /// ended left behind: one whose process is gone and whose lock no process
  /// holds (this user's only; others' are left alone).
  explicit RunTemporaryDirectory(const std::string &prefix);
  ~RunTemporaryDirectory();
  RunTemporaryDirectory(const RunTemporaryDirectory &) = delete;
  RunTemporaryDirectory &operator=(const RunTemporaryDirectory &) = delete;

  const std::filesystem::path &path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_ = -1;
};

/// The TMP/<prefix>-<pid> directories that ended runs left: what
/// RunTemporaryDirectory removes first.
std::vector<std::filesystem::path> leftTemporaryDirectories(const std::string &prefix);

}  // namespace mlgo
