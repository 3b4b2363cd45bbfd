#include "mlgo/launcher/store_outage.h"

#include <chrono>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "mlgo/driver/compile_memo.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

/// How long one warning stands for a build's compiles.
constexpr auto kWarningStands = std::chrono::minutes(10);

/// Creates `marker` if it does not exist: true for the one caller that did.
bool createExclusively(const fs::path &marker) {
  const int fd = ::open(marker.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool stale(const fs::path &marker) {
  struct stat status {};
  if (::stat(marker.c_str(), &status) != 0) return true;
  const auto written = std::chrono::system_clock::from_time_t(status.st_mtime);
  return std::chrono::system_clock::now() - written > kWarningStands;
}

}  // namespace

bool warnStoreUnavailable(const std::string &location, const std::string &why) {
  // The compiles of one build share its session (make and ninja start their
  // jobs in the session they run in).
  const std::string build = location + '\n' + std::to_string(::getsid(0)) + '\n' + std::to_string(::getuid());
  const fs::path marker = fs::temp_directory_path() / ("mlgo-store-unavailable-" + CompileMemo::hash(build).substr(0, 16));
  if (!createExclusively(marker)) {
    if (!stale(marker)) return false;
    ::unlink(marker.c_str());
    if (!createExclusively(marker)) return false;
  }
  spdlog::warn("{}; this build compiles and links as clang would while the store cannot be used", why);
  return true;
}

}  // namespace mlgo::launcher
