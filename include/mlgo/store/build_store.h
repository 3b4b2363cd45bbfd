#pragma once
// A project's store of what its builds tried (`mlgo cc --store STORE`): an
// SQLite file that every compile of a `-j` build reads and writes at once,
// or a PostgreSQL database that the builds of many machines share
// (store_database.h: how rows are kept; store_model.h: what they decide). For each translation unit, keyed by its content (its frontend
// bitcode and cc1 command line), it holds every pass list compiled for it with its
// sizes and IR instruction count, and the unit's current choice: the
// smallest compile whose list passed the correctness gate (verdicts are
// kept per list, for every unit). The store as a whole belongs to one LLVM
// version and one search space; a store of another is ignored.
//
// Writes are transactions: a build killed at any moment leaves the store
// consistent and loses nothing committed.
// docs/formats.md gives the schema.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/store/store_database.h"
#include "mlgo/store/store_model.h"

namespace mlgo::store {

/// What the store's figures mean: they are only comparable under the same
/// LLVM and the same search space (its hash includes the always-inline
/// prologue).
struct StoreIdentity {
  std::string llvm;
  std::string searchSpace;
  /// The compile-cost model its work figures come from (kCostModelVersion).
  std::string costModel;
  bool operator==(const StoreIdentity &other) const {
    return llvm == other.llvm && searchSpace == other.searchSpace && costModel == other.costModel;
  }
};

/// "LLVM 19.1.7, search space 0123456789ab, cost model 2".
std::string describeIdentity(const StoreIdentity &identity);

/// This mlgo's identity for lists of the search space of hash
/// `searchSpaceHash` (autotune::searchSpaceHash).
StoreIdentity storeIdentity(const std::string &searchSpaceHash);

/// The store's contents in figures (`mlgo store-info`).
struct StoreSummary {
  StoreIdentity identity;
  size_t units = 0;
  size_t trials = 0;          ///< compiles recorded, failed ones included
  size_t verdicts = 0;        ///< lists the gate judged
  size_t keptTrials = 0;      ///< trials whose linked bytes are known
  size_t improvedUnits = 0;   ///< units whose choice is smaller than their recorded level
  uint64_t recordedTextData = 0;  ///< .text+.data of every unit at its recorded level
  uint64_t chosenTextData = 0;    ///< ... with its choice
  double geomeanRatio = 1;        ///< chosen / recorded .text+.data, geometric mean over units
  /// What ships: every output linked through the store, as its latest
  /// link left it, and their sums.
  std::vector<StoredLink> links;
  uint64_t linkedShipped = 0, linkedPlain = 0;
  double costBound = kDefaultCostBound;
  uintmax_t bytesOnDisk = 0;      ///< the database with its WAL and the recorded objects
  /// Units no build is made of any more (an edited file's earlier
  /// versions): what a cleanup removes first.
  size_t earlierVersions = 0;
  int64_t oldestUse = 0, latestUse = 0;  ///< of the units (Unix milliseconds; 0: unknown)
  std::vector<std::string> foreignWriters;  ///< identities of compiles that found the store not theirs
};

/// What a cleanup to a size bound removes (BuildStore::cleanup).
struct StoreCleanup {
  uint64_t bytesBefore = 0;  ///< the database, its log and the recorded objects
  uint64_t bytesAfter = 0;   ///< measured after a cleanup; estimated for a plan
  /// Recorded objects of other trees than a unit's latest (their names,
  /// recordedObjectPath): what goes first, since a tree that builds the
  /// unit again compiles its own once more.
  std::vector<std::string> removedObjects;
  std::vector<std::string> removedUnits;  ///< keys, in the order they went
  std::vector<std::string> removedModules;
};

/// The exact key of a unit: a hash of its frontend bitcode and of its
/// command line. Both name the build's directories (the source's path, -I
/// and -fdebug-compilation-dir): one tree's unit, what its recorded object
/// is named by. A store's units are keyed by unitKeyOfHash of the portable
/// forms of both (launcher/portable_unit.h), the same in every tree.
std::string unitKey(std::string_view bitcode, const std::vector<std::string> &commandLine);
std::string unitKeyOfHash(const std::string &bitcodeHash, const std::vector<std::string> &commandLine);

class BuildStore {
 public:
  /// Opens the store at `location`: an SQLite file (a link is followed to
  /// its file), created with its schema when it does not exist, or a
  /// PostgreSQL database (postgresql://...: store_database.h), whose tables
  /// are made when it has none. Throws InputError naming the store and
  /// saying why when it is not a store of mlgo's or cannot be opened or
  /// written (the file, or its directory, where SQLite keeps the write-ahead
  /// log): a store mlgo cannot use stops a build before it compiles
  /// anything. Throws StoreUnavailable when its server cannot be reached.
  BuildStore(const std::string &location, const StoreIdentity &identity);
  /// Opens a store that exists, whatever its identity, read-only (to read or
  /// merge it): it stays as it was. Throws InputError naming the store when
  /// there is none, or it is not a store of mlgo's.
  static std::unique_ptr<BuildStore> openExisting(const std::string &location);
  ~BuildStore();
  BuildStore(const BuildStore &) = delete;
  BuildStore &operator=(const BuildStore &) = delete;

  /// Whether the store was written under this identity (a new store is).
  bool usable() const { return stored_ == identity_; }
  const StoreIdentity &storedIdentity() const { return stored_; }
  /// For a store that is not usable: records that a compile under this
  /// identity found it so; true the first time (the caller says so then).
  bool noteForeignWriter();

  std::optional<StoredUnit> unit(const std::string &key) const;
  /// Notes that a compile used the unit now (StoredUnit::used).
  void noteUsed(const std::string &key);
  /// The bound on a build's estimated compile cost against its plain
  /// build's that the store's choices keep (store_model.h): the last one a
  /// compile gave (--cost-bound), kDefaultCostBound until one did.
  double costBound() const { return costBound_; }
  /// Makes `bound` the store's and chooses again, in one transaction (a
  /// bound the store already has writes nothing).
  void setCostBound(double bound);
  /// Adds the trials (a pipeline already stored keeps its first result: a
  /// compile is deterministic) and updates the unit's choice, in one
  /// transaction.
  void recordTrials(const std::string &key, const std::string &module, bool cxx,
                    const std::vector<StoredTrial> &trials);
  std::map<std::string, StoredVerdict> verdicts() const;
  /// The verdicts on the lists `unit` tried.
  std::map<std::string, StoredVerdict> verdictsFor(const StoredUnit &unit) const;
  /// Records the verdict on `pipeline` and updates the choice of every unit
  /// that compiled it, in one transaction.
  void recordVerdict(const std::string &pipeline, const StoredVerdict &verdict);
  /// Records what the linker kept of units compiled with their pipelines
  /// (entries for a trial the store does not hold are left out) and updates
  /// their choices, in one transaction.
  void recordKept(const std::vector<KeptByLinker> &kept);
  /// Records which unit and pipeline objects (by their content hash,
  /// CompileMemo::hash) were compiled from, in one transaction.
  void recordObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects);
  std::optional<ObjectOrigin> objectOrigin(const std::string &hash) const;
  /// Where a unit's object at its recorded level is kept (objectsDirectory),
  /// by the name its objects' origins give (the unit's
  /// exact key: one object per tree it is built in): what a link compares
  /// its choices with.
  std::filesystem::path recordedObjectPath(const std::string &plain) const;
  /// The names of the recorded objects of `unit` (recordedObjectPath), its
  /// key among them.
  std::vector<std::string> plainObjectsOf(const std::string &unit) const;
  /// Gives the unit `from` (with its trials, kept sizes and objects) the key
  /// `to`, where `to` is not a unit yet: a unit a store kept under its exact
  /// key (before keys travelled) found under its portable key. False when
  /// there was nothing to move.
  bool rekeyUnit(const std::string &from, const std::string &to);
  /// Whether a link (a hash of its command and its inputs' contents) was
  /// found no larger than its plain link already.
  bool linkVerified(const std::string &link) const;
  /// Records what a link through the store shipped against its plain link
  /// (the latest link of an output replaces its row).
  void recordLink(const StoredLink &link);
  /// The exploration price (store_model.h) for --explore perUnit and a
  /// search budget, set once a build: by the links of the build before, or
  /// by its first compile of a unit that was used since the price was set
  /// (`unitUsed`: that unit's StoredUnit::used), which shows a new build has
  /// begun. Unset when none is at hand or a new build has begun.
  std::optional<double> explorationPrice(size_t perUnit, size_t budget, int64_t unitUsed) const;
  /// Sets the price from the store as it is now (its build's units) and
  /// returns it.
  double refreshExplorationPrice(size_t perUnit, size_t budget);
  /// Every output linked through the store, as its latest link left it.
  std::vector<StoredLink> links() const;
  void recordVerifiedLink(const std::string &link);
  /// The chosen pipelines of the store's units, most often chosen first
  /// (ties in text order), the recorded level left out: what won on a
  /// project's units, which its new units try first.
  std::vector<std::string> winningPipelines() const;
  /// The lineage of a unit: the choices of the other units of module name
  /// `module` (its earlier versions, an edited file's), latest used first,
  /// the recorded level left out: what an edited unit tries first.
  std::vector<std::string> lineageChoices(const std::string &module, const std::string &except) const;
  /// Every list the gate accepted that beat some unit's recorded level: the
  /// winning pipelines first (as above), then the others, those smaller
  /// than the recorded level on most units first (ties in text order). What
  /// the store gives sweep-passes as a pool.
  std::vector<std::string> gatedPipelines() const;

  std::vector<StoredUnit> units() const;
  StoreSummary summarize() const;
  /// "ok", or the problems SQLite's integrity check finds, one a line.
  std::string integrity() const;
  /// Adds every unit, trial and verdict of `other` (a store of the same
  /// identity) and updates the choices: joining two stores gives what one
  /// store written by both builds holds.
  void merge(const BuildStore &other);

  /// What messages name: the file, or the server's address without its password.
  const std::string &location() const { return location_; }
  /// This machine's directory of the store's recorded objects
  /// (localStoreBase's BASE.objects/).
  const std::filesystem::path &objectsDirectory() const { return objects_; }
  /// The store's bytes: the database, its write-ahead log and the recorded
  /// objects kept beside it.
  uint64_t bytesOnDisk() const;
  /// What a cleanup to `maxBytes` would remove (store_model.h's
  /// unitsToRemove), without removing it. Units used at `keepUsedSince`
  /// (Unix milliseconds) or later stay.
  StoreCleanup cleanupPlan(uint64_t maxBytes, int64_t keepUsedSince) const;
  /// Removes those units with their trials, kept bytes, objects and
  /// recorded object, chooses again, and compacts the database; nothing
  /// when the store fits already. Other compiles wait for it, as for any
  /// write.
  StoreCleanup cleanup(uint64_t maxBytes, int64_t keepUsedSince);
  /// For a cleanup while a build may be running (mlgo cc --store-max-size):
  /// units used within the last two hours stay (a hit notes its use at most
  /// hourly).
  static int64_t recentUseSince();

  /// Folds the write-ahead log into the database file and leaves WAL mode,
  /// so the file alone is the whole store (before it is renamed or copied).
  void finishAsOneFile();

 private:
  BuildStore(std::unique_ptr<StoreDatabase> database, const std::string &location);
  /// Checks the store is whole and reads its identity and settings.
  void readIdentity();
  /// Chooses again for every unit (the build shares one compile budget).
  void refreshChoices();
  std::string metaValue(const std::string &key) const;
  /// A time for units.used (within a write transaction): now, or just after
  /// the latest use the store holds, so that uses keep their order.
  int64_t nextUse() const;
  /// Within a write transaction: the unit's row and its new trials; the
  /// verdict on a list.
  void insertTrials(const std::string &key, const std::string &module, bool cxx,
                    const std::vector<StoredTrial> &trials, int64_t used);
  void insertVerdict(const std::string &pipeline, const StoredVerdict &verdict);
  void insertLink(const StoredLink &link);
  void insertObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects);
  std::string location_;  ///< as shown
  StoreIdentity identity_, stored_;
  std::unique_ptr<StoreDatabase> db_;
  std::filesystem::path objects_;
  /// What units.used is read as: "0" in a format-1 store opened read-only.
  std::string usedColumn_ = "used";
  std::string plainColumn_ = "plain";  ///< what names an object's plain object (objects.plain)
  double costBound_ = kDefaultCostBound;
};

}  // namespace mlgo::store
