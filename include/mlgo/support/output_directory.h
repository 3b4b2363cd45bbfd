#pragma once
// One writer per output directory. Two runs writing into one directory mix
// their files (checkpoints of two seeds, a trace whose description disagrees
// with its shards), so every command that writes a directory first claims it:
// an exclusive lock that the kernel releases when the process ends, kill -9
// included, so a crashed run never leaves a stale lock behind.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlgo {

/// Another process holds the output directory. The message names it.
class OutputInUse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a command does with an output directory that already holds files.
enum class ExistingOutput {
  Keep,     ///< write over what is there (outputs replaced file by file)
  Refuse,   ///< UsageError: the user must pass --resume or --force
  Resume,   ///< continue the run the directory holds
  Replace,  ///< --force: remove an earlier run's files first (and refuse anyone else's)
};

class OutputDirectoryLock {
 public:
  /// The lock file inside each claimed directory; outputs never include it.
  static constexpr const char *kLockFile = ".mlgo-lock";

  /// Creates `directory` when needed and locks it for `command` (e.g.
  /// "train-ppo"). Throws OutputInUse naming the holder (command, pid, host,
  /// start time) when another process has it, and UsageError for an existing
  /// directory that holds files when `existing` is Refuse (`howToContinue`
  /// completes that message). With Replace, removes what the command's runs
  /// write there, `ownEntries` (glob patterns of top-level names, as
  /// fnmatch(3) reads them) and what every run writes (its manifest,
  /// TensorBoard events, atomic writes' temporary files); a directory that
  /// holds anything else is refused with a UsageError naming it, and nothing
  /// is removed.
  static OutputDirectoryLock claim(const std::filesystem::path &directory, const std::string &command,
                                   ExistingOutput existing, const std::string &howToContinue = "",
                                   const std::vector<std::string> &ownEntries = {});

  OutputDirectoryLock(OutputDirectoryLock &&other) noexcept;
  OutputDirectoryLock &operator=(OutputDirectoryLock &&other) = delete;
  OutputDirectoryLock(const OutputDirectoryLock &) = delete;
  ~OutputDirectoryLock();

 private:
  explicit OutputDirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// Whether `directory` holds anything besides the lock file.
bool holdsOutput(const std::filesystem::path &directory);

}  // namespace mlgo
