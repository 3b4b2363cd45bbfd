#include "mlgo/launcher/link_baseline.h"

#include <chrono>
#include <cstdlib>

#include "mlgo/store/build_store.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/support/atomic_file.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

/// What a link's plain objects are marked with: not the recorded level.
constexpr const char *kChanged = "changed by mlgo cc";
constexpr auto kStaleAfter = std::chrono::hours(24 * 30);

}  // namespace

std::optional<store::ObjectOrigin> StoreBaseline::objectOrigin(const std::string &hash) const {
  return store_.objectOrigin(hash);
}
fs::path StoreBaseline::plainObjectPath(const std::string &plain) const { return store_.recordedObjectPath(plain); }
bool StoreBaseline::linkVerified(const std::string &link) const { return store_.linkVerified(link); }
void StoreBaseline::recordVerifiedLink(const std::string &link) { store_.recordVerifiedLink(link); }
void StoreBaseline::recordKept(const std::vector<store::KeptByLinker> &kept) { store_.recordKept(kept); }
void StoreBaseline::recordLink(const store::StoredLink &link) { store_.recordLink(link); }

fs::path PlainObjects::defaultDirectory() {
  if (const char *given = std::getenv("MLGO_PLAIN_OBJECTS"); given && *given) return given;
  if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache) return fs::path(cache) / "mlgo" / "plain-objects";
  const char *home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "mlgo" / "plain-objects";
}

void PlainObjects::remember(const std::string &written, const std::string &plain) {
  if (written == plain) return;
  const std::string hash = CompileMemo::hash(written);
  fs::create_directories(directory_ / "objects");
  writeFileAtomically(plainObjectPath(hash), plain);
  // One write in 16 sweeps, by the hash: deterministic, and rare enough to cost nothing.
  if (hash.front() == '0') removeStale();
}

std::optional<store::ObjectOrigin> PlainObjects::objectOrigin(const std::string &hash) const {
  std::error_code error;
  if (!fs::is_regular_file(plainObjectPath(hash), error)) return std::nullopt;
  // A link that uses it keeps it from going stale.
  fs::last_write_time(plainObjectPath(hash), fs::file_time_type::clock::now(), error);
  return store::ObjectOrigin{hash, kChanged, hash};
}

fs::path PlainObjects::plainObjectPath(const std::string &plain) const { return directory_ / "objects" / (plain + ".o"); }

bool PlainObjects::linkVerified(const std::string &link) const {
  std::error_code error;
  return fs::is_regular_file(directory_ / "links" / link, error);
}

void PlainObjects::recordVerifiedLink(const std::string &link) {
  fs::create_directories(directory_ / "links");
  writeFileAtomically(directory_ / "links" / link, "");
}

void PlainObjects::removeStale() const {
  const auto oldest = fs::file_time_type::clock::now() - kStaleAfter;
  for (const char *folder : {"objects", "links"}) {
    std::error_code error;
    for (fs::directory_iterator entry(directory_ / folder, error), end; !error && entry != end; entry.increment(error)) {
      std::error_code ignored;
      if (entry->is_regular_file(ignored) && entry->last_write_time(ignored) < oldest) fs::remove(entry->path(), ignored);
    }
  }
}

}  // namespace mlgo::launcher
