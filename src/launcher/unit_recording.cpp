#include "mlgo/launcher/unit_recording.h"

#include <cerrno>
#include <cstring>
#include <set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/file_lock.h"
#include "mlgo/support/text_input.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

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

void checkRecordDirectory(const fs::path &corpus) {
  const auto refuse = [&](const std::string &why) { throw UsageError("--record " + corpus.string() + ": " + why); };
  std::error_code error;
  const fs::file_status status = fs::status(corpus, error);
  if (fs::exists(status) && !fs::is_directory(status))
    refuse(std::string(fs::is_regular_file(status) ? "a file" : "a device or a pipe") +
           ", not a directory: the units are recorded into a corpus directory");
  if (!fs::exists(status)) {
    fs::create_directories(corpus, error);
    if (error) refuse("cannot make the directory: " + error.message());
  }
  if (::access(corpus.c_str(), W_OK | X_OK) != 0) refuse(std::string("cannot be written: ") + std::strerror(errno));
}

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
