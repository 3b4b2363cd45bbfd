#include "mlgo/launcher/launch_log.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/store/build_store.h"
#include "mlgo/support/errors.h"

namespace mlgo::launcher {

namespace {

nlohmann::json appliedJson(const Application &application, const TranslationUnitOutcome *outcome) {
  nlohmann::json applied = nlohmann::json::object();
  const bool policy = outcome ? application.policyFor(outcome->module) : !application.policyUnits;
  if (!application.policyDescription.empty() && policy) applied["policy"] = application.policyDescription;
  if (outcome && !outcome->passList.empty()) applied["pass_list"] = outcome->passList;
  if (application.prediction) {
    applied["predictor"] = application.prediction->description;
    applied["ranking"] = autotune::rankingName(application.prediction->predictor->ranking);
    if (outcome) applied["compiles"] = outcome->candidates;
  }
  if (application.neverLarger) applied["never_larger"] = true;
  if (!application.recordCorpus.empty()) applied["record"] = application.recordCorpus.string();
  if (application.store) {
    applied["store"] = application.store->location();
    if (application.explore) applied["explore"] = application.explore;
  }
  return applied;
}

/// Opens the log for appending; throws naming it when it is not a regular
/// file that can be written (a directory, a named pipe, a link, a device).
int openLog(const std::filesystem::path &log) {
  // O_NONBLOCK: a named pipe without a reader must not hang the build;
  // O_NOFOLLOW: a link is refused, never followed.
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) throw std::runtime_error("cannot open the log " + log.string() + ": " + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw std::runtime_error("cannot write the log " + log.string() + ": not a regular file");
  }
  return fd;
}

}  // namespace

nlohmann::json logRecord(const CompilePlan &plan, const Application &application,
                         const TranslationUnitOutcome &outcome) {
  nlohmann::json record{{"source", plan.source.string()},
                        {"object", plan.object.string()},
                        {"directory", std::filesystem::current_path().string()},
                        {"module", outcome.module},
                        {"applied", appliedJson(application, &outcome)},
                        {"seconds", outcome.seconds}};
  if (outcome.compiled) {
    record["text"] = outcome.sizes.text;
    record["text_data"] = outcome.sizes.textPlusData();
    if (!application.policyDescription.empty()) record["decisions"] = outcome.decisions;
    if (outcome.keptBackup) record["backup"] = true;
    if (outcome.overCostBound > 0) record["over_cost_bound"] = outcome.overCostBound;
    if (!outcome.storeUse.empty()) {
      record["store"] = outcome.storeUse;
      record["store_unit"] = outcome.storeUnit;
      record["new_trials"] = outcome.candidates;
      if (outcome.recordedTextData) record["recorded_text_data"] = *outcome.recordedTextData;
    }
  } else {
    record["fallback"] = outcome.fallback;
  }
  return record;
}

nlohmann::json planRecord(const CompilePlan &plan, const Application &application, const std::string &unapplied) {
  nlohmann::json record{{"source", plan.source.string()},
                        {"object", plan.object.string()},
                        {"directory", std::filesystem::current_path().string()},
                        {"applied", appliedJson(application, nullptr)}};
  if (!unapplied.empty()) record["fallback"] = unapplied;
  return record;
}

void checkLogWritable(const std::filesystem::path &log) {
  try {
    ::close(openLog(log));
  } catch (const std::exception &e) {
    throw UsageError(std::string("--log: ") + e.what());
  }
}

void appendLogLine(const std::filesystem::path &log, const nlohmann::json &record) {
  const std::string line = record.dump() + "\n";
  const int fd = openLog(log);
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
