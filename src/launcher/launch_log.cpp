#include "mlgo/launcher/launch_log.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlgo/autotune/pass_predictor.h"

namespace mlgo::launcher {

nlohmann::json logRecord(const CompilePlan &plan, const Application &application,
                         const TranslationUnitOutcome &outcome) {
  nlohmann::json applied = nlohmann::json::object();
  if (!application.policyDescription.empty()) applied["policy"] = application.policyDescription;
  if (!outcome.passList.empty()) applied["pass_list"] = outcome.passList;
  if (application.prediction) {
    applied["predictor"] = application.prediction->description;
    applied["ranking"] = autotune::rankingName(application.prediction->predictor->ranking);
    applied["compiles"] = outcome.candidates;
  }
  nlohmann::json record{{"source", plan.source.string()},
                        {"object", plan.object.string()},
                        {"module", outcome.module},
                        {"applied", applied},
                        {"seconds", outcome.seconds}};
  if (outcome.compiled) {
    record["text"] = outcome.sizes.text;
    record["text_data"] = outcome.sizes.textPlusData();
    if (!application.policyDescription.empty()) record["decisions"] = outcome.decisions;
  } else {
    record["fallback"] = outcome.fallback;
  }
  return record;
}

void appendLogLine(const std::filesystem::path &log, const nlohmann::json &record) {
  const std::string line = record.dump() + "\n";
  // O_NONBLOCK: a named pipe without a reader must not hang the build.
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) throw std::runtime_error("cannot open the log " + log.string() + ": " + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw std::runtime_error("cannot write the log " + log.string() + ": not a regular file");
  }
  ::flock(fd, LOCK_EX);
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += size_t(n);
  }
  const int writeError = errno;
  ::close(fd);
  if (written != line.size())
    throw std::runtime_error("cannot write the log " + log.string() + ": " + std::strerror(writeError));
}

}  // namespace mlgo::launcher
