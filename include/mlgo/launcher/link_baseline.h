#pragma once
// What a link through mlgo cc is compared with (store_link.h): for each
// object mlgo cc wrote some other way than clang would have, clang's own
// object of the same unit. A project's store keeps them as its units'
// recorded-level objects; without a store, mlgo cc keeps them in a cache of
// plain objects, by the hash of the object it wrote, so that a link finds
// them for objects and archive members alike, wherever the build put them.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/store/store_model.h"

namespace mlgo::store {
class BuildStore;
}

namespace mlgo::launcher {

class LinkBaseline {
 public:
  virtual ~LinkBaseline() = default;
  /// Where an object (by its content hash, CompileMemo::hash) comes from: a
  /// non-empty pipeline means it is not clang's own. Unset: an object mlgo
  /// did not change, or does not know.
  virtual std::optional<store::ObjectOrigin> objectOrigin(const std::string &hash) const = 0;
  /// Clang's own object named `plain` (an origin's plain object).
  virtual std::filesystem::path plainObjectPath(const std::string &plain) const = 0;
  /// Whether a link (its key) was found no larger than its plain link before.
  virtual bool linkVerified(const std::string &link) const = 0;
  virtual void recordVerifiedLink(const std::string &link) = 0;
  /// What the linker kept of units, and what a link shipped: a store learns
  /// from them; the cache has no use for them.
  virtual void recordKept(const std::vector<store::KeptByLinker> &kept) {}
  virtual void recordLink(const store::StoredLink &link) {}
};

/// A project's store as a link's baseline.
class StoreBaseline final : public LinkBaseline {
 public:
  explicit StoreBaseline(store::BuildStore &store) : store_(store) {}
  std::optional<store::ObjectOrigin> objectOrigin(const std::string &hash) const override;
  std::filesystem::path plainObjectPath(const std::string &plain) const override;
  bool linkVerified(const std::string &link) const override;
  void recordVerifiedLink(const std::string &link) override;
  void recordKept(const std::vector<store::KeptByLinker> &kept) override;
  void recordLink(const store::StoredLink &link) override;

 private:
  store::BuildStore &store_;
};

/// Clang's objects of the units mlgo cc compiled another way (a policy, a
/// pass list, a predicted list, a choice file), without a store:
/// DIRECTORY/objects/HASH.o is clang's object of the unit whose object mlgo
/// wrote has the hash HASH; DIRECTORY/links/KEY marks a link found no
/// larger. Entries unused for 30 days are removed now and then.
class PlainObjects final : public LinkBaseline {
 public:
  explicit PlainObjects(std::filesystem::path directory) : directory_(std::move(directory)) {}
  /// $MLGO_PLAIN_OBJECTS, else $XDG_CACHE_HOME/mlgo/plain-objects, else
  /// ~/.cache/mlgo/plain-objects.
  static std::filesystem::path defaultDirectory();
  /// Keeps `plain`, clang's object of a unit, for `written`, the object mlgo
  /// cc wrote for it (nothing when they are the same bytes). Throws what
  /// stops the write.
  void remember(const std::string &written, const std::string &plain);
  std::optional<store::ObjectOrigin> objectOrigin(const std::string &hash) const override;
  std::filesystem::path plainObjectPath(const std::string &plain) const override;
  bool linkVerified(const std::string &link) const override;
  void recordVerifiedLink(const std::string &link) override;

 private:
  /// Removes entries whose last write or use is older than 30 days.
  void removeStale() const;
  std::filesystem::path directory_;
};

}  // namespace mlgo::launcher
