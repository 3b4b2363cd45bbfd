#include "mlgo/launcher/unit_recording.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

/// An exclusive lock on a file, released with this (or when the process
/// dies: a killed compile never leaves the corpus locked).
class FileLock {
 public:
  explicit FileLock(const fs::path &file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0)
      throw InputError(describeInputProblem(file.string(), "", std::string("cannot lock: ") + std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

 private:
  int fd_ = -1;
};

/// The names the corpus lists now; none for a corpus not begun.
std::set<std::string> listedModules(const fs::path &corpus) {
  const fs::path description = corpus / kCorpusDescriptionFile;
  if (!fs::exists(description)) return {};
  const nlohmann::json listed = readJsonFile(description);
  if (listed.value("has_thinlto", false))
    throw InputError(describeInputProblem(description.string(), "has_thinlto",
                                          "is true: units of a build are recorded into a corpus of their own"));
  std::set<std::string> names;
  if (listed.contains("modules") && listed["modules"].is_array())
    for (const nlohmann::json &name : listed["modules"])
      if (name.is_string()) names.insert(name.get<std::string>());
  return names;
}

}  // namespace

void recordUnit(const fs::path &corpus, const std::string &module, const std::string &bitcode,
                const std::string &commandLine) {
  if (!isContainedRelativePath(module))
    throw InputError(describeInputProblem(corpus.string(), module,
                                          "the object is outside the build directory: not recorded"));
  fs::create_directories(corpus);
  writeFileInside(corpus, module + ".bc", bitcode);
  writeFileInside(corpus, module + ".cmd", commandLine);
  const FileLock lock(corpus / ".mlgo-record.lock");
  std::set<std::string> names = listedModules(corpus);
  if (!names.insert(module).second) return;
  writeCorpusDescription(corpus, std::vector<std::string>(names.begin(), names.end()), false);
}

}  // namespace mlgo::launcher
