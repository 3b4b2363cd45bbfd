#include "mlgo/store/build_store.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

#include <sys/stat.h>

#include <llvm/Config/llvm-config.h>
#include <spdlog/fmt/fmt.h>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/errors.h"

namespace mlgo::store {

namespace fs = std::filesystem;

namespace {

/// Changes when the schema's meaning does. Format 1 had no units.used: a
/// store of it is brought to format 2 when opened to be written.
constexpr const char *kStoreFormat = "2";

/// A unit's trials with what the linker kept of each, where known.
constexpr const char *kTrialsOfUnit =
    "SELECT t.pipeline, t.compiled, t.text, t.rodata, t.data, t.bss, t.ir_instructions, t.work, k.text, k.data, "
    "k.bss FROM trials t LEFT JOIN kept k ON k.unit = t.unit AND k.pipeline = t.pipeline WHERE t.unit = ?";

/// Every unit's trials, as kTrialsOfUnit gives one's, after the unit's key.
constexpr const char *kEveryTrial =
    "SELECT t.unit, t.pipeline, t.compiled, t.text, t.rodata, t.data, t.bss, t.ir_instructions, t.work, k.text, "
    "k.data, k.bss FROM trials t LEFT JOIN kept k ON k.unit = t.unit AND k.pipeline = t.pipeline";

/// How stale a unit's last use may be (in milliseconds) before a compile
/// that uses it writes the time again.
constexpr int64_t kUseResolution = 3600 * 1000;

int64_t millisecondsNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

StoredTrial trialOfRow(const Query &row, int first) {
  StoredTrial trial;
  trial.pipeline = row.text(first);
  trial.compiled = row.integer(first + 1) != 0;
  trial.sizes.text = uint64_t(row.integer(first + 2));
  trial.sizes.rodata = uint64_t(row.integer(first + 3));
  trial.sizes.data = uint64_t(row.integer(first + 4));
  trial.sizes.bss = uint64_t(row.integer(first + 5));
  trial.irInstructions = uint64_t(row.integer(first + 6));
  trial.work = uint64_t(row.integer(first + 7));
  if (!row.isNull(first + 8))
    trial.kept = SectionSizes{uint64_t(row.integer(first + 8)), 0, uint64_t(row.integer(first + 9)),
                              uint64_t(row.integer(first + 10))};
  return trial;
}

Query &bindKept(Query &row, const std::string &unit, const std::string &pipeline, const SectionSizes &kept) {
  return row.bind(1, unit).bind(2, pipeline).bind(3, int64_t(kept.text)).bind(4, int64_t(kept.data)).bind(
      5, int64_t(kept.bss));
}

/// A unit without its trials from (module, cxx, choice, used) at `first`.
StoredUnit unitOfRow(const std::string &key, const Query &row, int first) {
  StoredUnit unit{key, row.text(first), row.integer(first + 1) != 0, {}, std::nullopt, row.integer(first + 3)};
  if (!row.isNull(first + 2)) unit.choice = row.text(first + 2);
  return unit;
}

StoredVerdict verdictOfRow(const Query &row, int first) {
  return {row.integer(first) != 0, row.integer(first + 1) != 0, row.text(first + 2)};
}

}  // namespace

std::string describeIdentity(const StoreIdentity &identity) {
  return "LLVM " + identity.llvm + ", search space " + identity.searchSpace.substr(0, 12) + ", cost model " +
         identity.costModel;
}

StoreIdentity storeIdentity(const std::string &searchSpaceHash) {
  return {LLVM_VERSION_STRING, searchSpaceHash, kCostModelVersion};
}

std::string unitKey(std::string_view bitcode, const std::vector<std::string> &commandLine) {
  return unitKeyOfHash(CompileMemo::hash(bitcode), commandLine);
}

std::string unitKeyOfHash(const std::string &bitcodeHash, const std::vector<std::string> &commandLine) {
  return CompileMemo::hash(bitcodeHash + '\n' + formatRecordedCommandLine(commandLine));
}

BuildStore::BuildStore(const std::string &location, const StoreIdentity &identity)
    : location_(shownLocation(location)),
      identity_(identity),
      db_(openStoreDatabase(location, StoreAccess::ReadWrite)),
      objects_(localStoreBase(location).string() + ".objects") {
  db_->setUp({{"format", kStoreFormat},
              {"llvm", identity_.llvm},
              {"search_space", identity_.searchSpace},
              {"cost_model", identity_.costModel}});
  readIdentity();
}

BuildStore::BuildStore(std::unique_ptr<StoreDatabase> database, const std::string &location)
    : location_(shownLocation(location)),
      db_(std::move(database)),
      objects_(localStoreBase(location).string() + ".objects") {
  readIdentity();
}

BuildStore::~BuildStore() = default;

std::unique_ptr<BuildStore> BuildStore::openExisting(const std::string &location) {
  // Read-only: a command that only reads a store leaves it as it was.
  return std::unique_ptr<BuildStore>(new BuildStore(openStoreDatabase(location, StoreAccess::ReadOnly), location));
}

std::string BuildStore::metaValue(const std::string &key) const {
  Query row(*db_, "SELECT value FROM meta WHERE key = ?");
  row.bind(1, key);
  return row.step() ? row.text(0) : std::string();
}

void BuildStore::readIdentity() {
  db_->requireWholeStore();
  std::map<std::string, std::string> meta;
  for (Query row(*db_, "SELECT key, value FROM meta"); row.step();) meta[row.text(0)] = row.text(1);
  // A format-1 store opened only to be read stays as it is: its units were never used since.
  if (meta["format"] != kStoreFormat && meta["format"] != "1")
    throw InputError(describeInputProblem(location_, "meta.format",
                                          "is \"" + meta["format"] + "\"; this mlgo reads formats 1 and " +
                                              kStoreFormat));
  usedColumn_ = meta["format"] == "1" ? "0" : "used";
  // Before objects named their plain object, it was named by the unit's key.
  plainColumn_ = db_->hasColumn("objects", "plain") ? "coalesce(nullif(plain, ''), unit)" : "unit";
  if (meta.count("cost_bound")) costBound_ = std::strtod(meta["cost_bound"].c_str(), nullptr);
  // A store from before the cost model was named has none: it is model 1's.
  stored_ = {meta["llvm"], meta["search_space"], meta.count("cost_model") ? meta["cost_model"] : "1"};
}

void BuildStore::finishAsOneFile() { db_->finishAsOneFile(); }

bool BuildStore::noteForeignWriter() {
  WriteTransaction transaction(*db_);
  Query insert(*db_, "INSERT INTO foreign_writers(identity) VALUES(?) ON CONFLICT DO NOTHING RETURNING 1");
  const bool first = insert.bind(1, describeIdentity(identity_)).step();
  insert.run();
  transaction.commit();
  return first;
}

std::optional<StoredUnit> BuildStore::unit(const std::string &key) const {
  Query row(*db_, ("SELECT module, cxx, choice, " + usedColumn_ + " FROM units WHERE unit = ?"));
  row.bind(1, key);
  if (!row.step()) return std::nullopt;
  StoredUnit unit = unitOfRow(key, row, 0);
  Query trials(*db_, kTrialsOfUnit);
  trials.bind(1, key);
  while (trials.step()) {
    StoredTrial trial = trialOfRow(trials, 0);
    unit.trials.emplace(trial.pipeline, std::move(trial));
  }
  return unit;
}

int64_t BuildStore::nextUse() const {
  Query latest(*db_, "SELECT max(used) FROM units");
  const int64_t last = latest.step() ? latest.integer(0) : 0;
  return std::max(millisecondsNow(), last + 1);
}

void BuildStore::noteUsed(const std::string &key) {
  {
    Query row(*db_, ("SELECT " + usedColumn_ + " FROM units WHERE unit = ?"));
    row.bind(1, key);
    // A rebuild writes nothing within the hour: a write is a synced transaction.
    if (!row.step() || row.integer(0) > millisecondsNow() - kUseResolution) return;
  }
  WriteTransaction transaction(*db_);
  Query update(*db_, "UPDATE units SET used = CASE WHEN ?1 > used THEN ?1 ELSE used END WHERE unit = ?2");
  update.bind(1, nextUse()).bind(2, key).run();
  // Which version of a module is current may have changed: so may the build's choices.
  refreshChoices();
  transaction.commit();
}

std::map<std::string, StoredVerdict> BuildStore::verdictsFor(const StoredUnit &unit) const {
  Query verdictOf(*db_, "SELECT passed, cxx_link_only, failure FROM verdicts WHERE pipeline = ?");
  std::map<std::string, StoredVerdict> verdicts;
  for (const auto &[pipeline, trial] : unit.trials) {
    if (pipeline.empty()) continue;
    verdictOf.bind(1, pipeline);
    if (verdictOf.step()) verdicts[pipeline] = verdictOfRow(verdictOf, 0);
    verdictOf.run();
  }
  return verdicts;
}

void BuildStore::refreshChoices() {
  const std::vector<StoredUnit> all = units();
  const std::map<std::string, StoredVerdict> known = verdicts();
  const std::vector<const StoredUnit *> build = currentUnits(all);
  std::map<std::string, std::string> choices = chooseForBuild(build, known, costBound_);
  // An edited file's earlier versions: each within its own budget.
  std::set<std::string> inBuild;
  for (const StoredUnit *unit : build) inBuild.insert(unit->key);
  for (const StoredUnit &unit : all)
    if (!inBuild.count(unit.key))
      if (std::optional<std::string> choice = chooseTrial(unit, known, costBound_)) choices[unit.key] = *choice;
  Query update(*db_, "UPDATE units SET choice = ? WHERE unit = ?");
  for (const StoredUnit &unit : all) {
    auto choice = choices.find(unit.key);
    const std::optional<std::string> chosen =
        choice == choices.end() ? std::nullopt : std::optional<std::string>(choice->second);
    if (chosen == unit.choice) continue;
    if (chosen) update.bind(1, *chosen);
    else update.bindNull(1);
    update.bind(2, unit.key).run();
  }
}

std::optional<double> BuildStore::explorationPrice(size_t perUnit, size_t budget, int64_t unitUsed) const {
  std::istringstream stored(metaValue("exploration_price"));
  size_t storedPerUnit = 0, storedBudget = 0;
  double price = 0;
  int64_t set = 0;
  if (!(stored >> storedPerUnit >> storedBudget >> price >> set)) return std::nullopt;
  if (storedPerUnit != perUnit || storedBudget != budget || set < unitUsed) return std::nullopt;
  return price;
}

double BuildStore::refreshExplorationPrice(size_t perUnit, size_t budget) {
  WriteTransaction transaction(*db_);
  const std::vector<StoredUnit> all = units();
  const double price = store::explorationPrice(currentUnits(all), perUnit, budget);
  Query row(*db_, "INSERT INTO meta(key, value) VALUES('exploration_price', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  row.bind(1, fmt::format("{} {} {} {}", perUnit, budget, price, nextUse())).run();
  transaction.commit();
  return price;
}

void BuildStore::setCostBound(double bound) {
  if (bound == costBound_) return;
  WriteTransaction transaction(*db_);
  Query row(*db_, "INSERT INTO meta(key, value) VALUES('cost_bound', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  row.bind(1, fmt::format("{}", bound)).run();
  costBound_ = bound;
  refreshChoices();
  transaction.commit();
}

void BuildStore::recordTrials(const std::string &key, const std::string &module, bool cxx,
                              const std::vector<StoredTrial> &trials) {
  WriteTransaction transaction(*db_);
  insertTrials(key, module, cxx, trials, nextUse());
  refreshChoices();
  transaction.commit();
}

void BuildStore::insertTrials(const std::string &key, const std::string &module, bool cxx,
                              const std::vector<StoredTrial> &trials, int64_t used) {
  Query unitRow(*db_,
                    "INSERT INTO units(unit, module, cxx, choice, used) VALUES(?, ?, ?, NULL, ?) ON CONFLICT(unit) "
                    "DO UPDATE SET module = CASE WHEN excluded.module < units.module THEN excluded.module ELSE units.module END, "
                "used = CASE WHEN excluded.used > units.used THEN excluded.used ELSE units.used END");
  unitRow.bind(1, key).bind(2, module).bind(3, int64_t(cxx)).bind(4, used).run();
  Query trialRow(*db_,
                     "INSERT INTO trials(unit, pipeline, compiled, text, rodata, data, bss, ir_instructions, work) "
                 "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  for (const StoredTrial &trial : trials) {
    trialRow.bind(1, key).bind(2, trial.pipeline).bind(3, int64_t(trial.compiled));
    trialRow.bind(4, int64_t(trial.sizes.text)).bind(5, int64_t(trial.sizes.rodata));
    trialRow.bind(6, int64_t(trial.sizes.data)).bind(7, int64_t(trial.sizes.bss));
    trialRow.bind(8, int64_t(trial.irInstructions)).bind(9, int64_t(trial.work)).run();
  }
  Query keptRow(*db_, "INSERT INTO kept(unit, pipeline, text, data, bss) VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  for (const StoredTrial &trial : trials)
    if (trial.kept) bindKept(keptRow, key, trial.pipeline, *trial.kept).run();
}

void BuildStore::recordKept(const std::vector<KeptByLinker> &kept) {
  WriteTransaction transaction(*db_);
  // The latest build's attribution replaces an earlier one: what the linker
  // keeps of a unit depends on the other units it was linked with.
  Query keptRow(*db_,
                    "INSERT INTO kept(unit, pipeline, text, data, bss) SELECT ?, ?, ?, ?, ? WHERE EXISTS "
                "(SELECT 1 FROM trials WHERE unit = ?1 AND pipeline = ?2 AND compiled != 0) ON CONFLICT(unit, pipeline) "
                "DO UPDATE SET text = excluded.text, data = excluded.data, bss = excluded.bss");
  for (const KeptByLinker &entry : kept) bindKept(keptRow, entry.unit, entry.pipeline, entry.sizes).run();
  refreshChoices();
  transaction.commit();
}

void BuildStore::recordObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects) {
  WriteTransaction transaction(*db_);
  insertObjects(objects);
  transaction.commit();
}

void BuildStore::insertObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects) {
  Query row(*db_, "INSERT INTO objects(hash, unit, pipeline, plain) VALUES(?, ?, ?, ?) ON CONFLICT(hash) DO UPDATE SET "
            "unit = excluded.unit, pipeline = excluded.pipeline, plain = excluded.plain");
  for (const auto &[hash, origin] : objects)
    row.bind(1, hash).bind(2, origin.unit).bind(3, origin.pipeline).bind(4, origin.plain).run();
}

std::optional<ObjectOrigin> BuildStore::objectOrigin(const std::string &hash) const {
  Query row(*db_, ("SELECT unit, pipeline, " + plainColumn_ + " FROM objects WHERE hash = ?"));
  row.bind(1, hash);
  if (!row.step()) return std::nullopt;
  return ObjectOrigin{row.text(0), row.text(1), row.text(2)};
}

fs::path BuildStore::recordedObjectPath(const std::string &plain) const {
  // A name is a row other builds wrote (a shared store's above all): it
  // names a file in the objects' directory, never a path.
  const bool name = !plain.empty() && plain.size() <= 64 && std::all_of(plain.begin(), plain.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!name)
    throw InputError(describeInputProblem(location_, "objects.plain",
                                          "\"" + plain.substr(0, 40) + "\" is not an object's name: never used as a path"));
  return objects_ / (plain + ".o");
}

std::vector<std::string> BuildStore::plainObjectsOf(const std::string &unit) const {
  // A store from before objects named their plain object named it by the unit's key.
  std::set<std::string> names{unit};
  Query row(*db_, ("SELECT DISTINCT " + plainColumn_ + " FROM objects WHERE unit = ?"));
  for (row.bind(1, unit); row.step();) names.insert(row.text(0));
  return {names.begin(), names.end()};
}

bool BuildStore::rekeyUnit(const std::string &from, const std::string &to) {
  WriteTransaction transaction(*db_);
  if (unit(to) || !unit(from)) return false;  // another compile moved it meanwhile
  // Its objects keep naming their plain objects by the old key (their name).
  for (const char *sql : {"UPDATE objects SET plain = unit WHERE unit = ?1 AND plain = ''","UPDATE units SET unit = ?2 WHERE unit = ?1", "UPDATE trials SET unit = ?2 WHERE unit = ?1",
                          "UPDATE kept SET unit = ?2 WHERE unit = ?1", "UPDATE objects SET unit = ?2 WHERE unit = ?1"}) {
    Query update(*db_, sql);
    update.bind(1, from).bind(2, to).run();
  }
  refreshChoices();
  transaction.commit();
  return true;
}

bool BuildStore::linkVerified(const std::string &link) const {
  Query row(*db_, "SELECT 1 FROM verified_links WHERE link = ?");
  row.bind(1, link);
  return row.step();
}

void BuildStore::recordVerifiedLink(const std::string &link) {
  WriteTransaction transaction(*db_);
  Query(*db_, "INSERT INTO verified_links(link) VALUES(?) ON CONFLICT DO NOTHING").bind(1, link).run();
  transaction.commit();
}

void BuildStore::recordLink(const StoredLink &link) {
  WriteTransaction transaction(*db_);
  insertLink({link.output, link.shipped, link.plain, nextUse()});
  transaction.commit();
}

void BuildStore::insertLink(const StoredLink &link) {
  Query row(*db_,
                "INSERT INTO links(output, shipped, plain, used) VALUES(?, ?, ?, ?) ON CONFLICT(output) DO UPDATE SET "
                "shipped = excluded.shipped, plain = excluded.plain, used = excluded.used WHERE excluded.used >= links.used");
  row.bind(1, link.output).bind(2, int64_t(link.shipped)).bind(3, int64_t(link.plain)).bind(4, link.used).run();
}

std::vector<StoredLink> BuildStore::links() const {
  std::vector<StoredLink> all;
  if (usedColumn_ != "used") return all;  // a format-1 store kept none
  for (Query row(*db_, "SELECT output, shipped, plain, used FROM links ORDER BY output"); row.step();)
    all.push_back({row.text(0), uint64_t(row.integer(1)), uint64_t(row.integer(2)), row.integer(3)});
  return all;
}

void BuildStore::insertVerdict(const std::string &pipeline, const StoredVerdict &verdict) {
  Query insert(*db_, "INSERT INTO verdicts(pipeline, passed, cxx_link_only, failure) VALUES(?, ?, ?, ?) ON CONFLICT DO NOTHING");
  insert.bind(1, pipeline).bind(2, int64_t(verdict.passed)).bind(3, int64_t(verdict.cxxLinkOnly));
  insert.bind(4, verdict.failure).run();
}

std::map<std::string, StoredVerdict> BuildStore::verdicts() const {
  std::map<std::string, StoredVerdict> verdicts;
  for (Query row(*db_, "SELECT pipeline, passed, cxx_link_only, failure FROM verdicts"); row.step();)
    verdicts[row.text(0)] = verdictOfRow(row, 1);
  return verdicts;
}

void BuildStore::recordVerdict(const std::string &pipeline, const StoredVerdict &verdict) {
  WriteTransaction transaction(*db_);
  insertVerdict(pipeline, verdict);
  refreshChoices();
  transaction.commit();
}

std::vector<std::string> BuildStore::winningPipelines() const {
  std::vector<std::string> pipelines;
  for (Query row(*db_,
                     "SELECT choice FROM units WHERE choice IS NOT NULL AND choice != '' GROUP BY choice "
                     "ORDER BY count(*) DESC, choice");
       row.step();)
    pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<std::string> BuildStore::lineageChoices(const std::string &module, const std::string &except) const {
  std::vector<std::string> pipelines;
  Query row(*db_,
                ("SELECT choice FROM units WHERE module = ? AND unit != ? AND choice IS NOT NULL AND choice != '' "
                 "ORDER BY " + usedColumn_ + " DESC, unit"));
  row.bind(1, module).bind(2, except);
  while (row.step())
    if (std::find(pipelines.begin(), pipelines.end(), row.text(0)) == pipelines.end()) pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<std::string> BuildStore::gatedPipelines() const {
  std::vector<std::string> pipelines = winningPipelines();
  const std::set<std::string> winners(pipelines.begin(), pipelines.end());
  for (Query row(*db_,
                     "SELECT t.pipeline FROM trials t JOIN trials r ON r.unit = t.unit AND r.pipeline = '' "
                     "JOIN verdicts v ON v.pipeline = t.pipeline "
                     "WHERE t.pipeline != '' AND t.compiled != 0 AND v.passed != 0 "
                     "AND t.text + t.rodata + t.data < r.text + r.rodata + r.data "
                     "GROUP BY t.pipeline ORDER BY count(*) DESC, t.pipeline");
       row.step();)
    if (!winners.count(row.text(0))) pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<StoredUnit> BuildStore::units() const {
  std::vector<StoredUnit> all;
  std::map<std::string, size_t> index;
  for (Query row(*db_, ("SELECT unit, module, cxx, choice, " + usedColumn_ + " FROM units ORDER BY unit"));
       row.step();) {
    index[row.text(0)] = all.size();
    all.push_back(unitOfRow(row.text(0), row, 1));
  }
  for (Query row(*db_, kEveryTrial); row.step();) {
    auto owner = index.find(row.text(0));
    if (owner == index.end()) continue;
    StoredTrial trial = trialOfRow(row, 1);
    all[owner->second].trials.emplace(trial.pipeline, std::move(trial));
  }
  return all;
}

StoreSummary BuildStore::summarize() const {
  StoreSummary summary;
  summary.identity = stored_;
  double logRatios = 0;
  size_t measured = 0;
  const std::vector<StoredUnit> all = units();
  summary.earlierVersions = all.size() - currentUnits(all).size();
  for (const StoredUnit &stored : all) {
    if (stored.used > 0) {
      summary.oldestUse = summary.oldestUse == 0 ? stored.used : std::min(summary.oldestUse, stored.used);
      summary.latestUse = std::max(summary.latestUse, stored.used);
    }
  }
  for (const StoredUnit &stored : all) {
    ++summary.units;
    summary.trials += stored.trials.size();
    for (const auto &[pipeline, trial] : stored.trials) summary.keptTrials += trial.kept.has_value();
    auto recorded = stored.trials.find("");
    if (!stored.choice || recorded == stored.trials.end()) continue;
    const uint64_t before = recorded->second.sizes.textPlusData();
    const uint64_t after = stored.trials.at(*stored.choice).sizes.textPlusData();
    summary.recordedTextData += before;
    summary.chosenTextData += after;
    if (after < before) ++summary.improvedUnits;
    if (before > 0 && after > 0) {
      logRatios += std::log(double(after) / double(before));
      ++measured;
    }
  }
  summary.geomeanRatio = measured ? std::exp(logRatios / double(measured)) : 1.0;
  summary.verdicts = verdicts().size();
  summary.links = links();
  for (const StoredLink &link : summary.links) {
    summary.linkedShipped += link.shipped;
    summary.linkedPlain += link.plain;
  }
  summary.costBound = costBound_;
  for (Query row(*db_, "SELECT identity FROM foreign_writers ORDER BY identity"); row.step();)
    summary.foreignWriters.push_back(row.text(0));
  summary.bytesOnDisk = bytesOnDisk();
  return summary;
}

uint64_t BuildStore::bytesOnDisk() const {
  uint64_t bytes = db_->bytes();
  std::error_code error;
  for (fs::directory_iterator entry(objects_, error), end; !error && entry != end;
       entry.increment(error)) {
    std::error_code ignored;
    const uintmax_t size = entry->file_size(ignored);
    if (!ignored) bytes += size;
  }
  return bytes;
}

int64_t BuildStore::recentUseSince() { return millisecondsNow() - 2 * kUseResolution; }

namespace {

/// A recorded object on disk: its name, size and last use (its file's
/// modification time, which a compile in its tree renews).
struct RecordedObject {
  std::string name;
  uint64_t bytes = 0;
  int64_t used = 0;  ///< Unix milliseconds
};

std::optional<RecordedObject> recordedObjectOnDisk(const fs::path &path, const std::string &name) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return std::nullopt;
  return RecordedObject{name, uint64_t(status.st_size),
                        int64_t(status.st_mtim.tv_sec) * 1000 + int64_t(status.st_mtim.tv_nsec / 1000000)};
}

bool lessRecentlyUsed(const RecordedObject &a, const RecordedObject &b) {
  return std::make_tuple(a.used, a.name) < std::make_tuple(b.used, b.name);
}

/// The recorded objects a cleanup removes before any unit, in the order
/// they go, and the bytes of each unit's latest one (which stays with it).
struct ObjectsToRemove {
  std::vector<RecordedObject> inOrder;
  std::map<std::string, uint64_t> latestBytes;  ///< by unit
};

/// First the objects no origin names any more: a tree whose objects are byte
/// for byte another's (no path in them) shares that tree's origin rows, so
/// its own recorded object is left unnamed until it builds again. Then each
/// unit's objects of trees other than its latest, least recently used first
/// (not used since `keepUsedSince`): cheap to make again, where that tree
/// builds again.
ObjectsToRemove objectsToRemove(const BuildStore &store, const std::vector<StoredUnit> &all, int64_t keepUsedSince) {
  ObjectsToRemove plan;
  std::vector<RecordedObject> others;
  std::set<std::string> named;
  for (const StoredUnit &unit : all) {
    std::vector<RecordedObject> objects;
    for (const std::string &plain : store.plainObjectsOf(unit.key)) {
      named.insert(plain);
      if (auto object = recordedObjectOnDisk(store.recordedObjectPath(plain), plain)) objects.push_back(*object);
    }
    std::sort(objects.rbegin(), objects.rend(), lessRecentlyUsed);  // the latest first
    if (!objects.empty()) plan.latestBytes[unit.key] = objects.front().bytes;
    for (size_t i = 1; i < objects.size(); ++i)
      if (objects[i].used < keepUsedSince) others.push_back(objects[i]);
  }
  const fs::path &directory = store.objectsDirectory();
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().stem().string();
    if (entry->path().extension() != ".o" || named.count(name)) continue;
    if (auto object = recordedObjectOnDisk(entry->path(), name)) plan.inOrder.push_back(*object);
  }
  std::sort(plan.inOrder.begin(), plan.inOrder.end(), lessRecentlyUsed);
  std::sort(others.begin(), others.end(), lessRecentlyUsed);
  plan.inOrder.insert(plan.inOrder.end(), others.begin(), others.end());
  return plan;
}

}  // namespace

StoreCleanup BuildStore::cleanupPlan(uint64_t maxBytes, int64_t keepUsedSince) const {
  StoreCleanup plan;
  plan.bytesBefore = plan.bytesAfter = bytesOnDisk();
  const std::vector<StoredUnit> all = units();
  const ObjectsToRemove objects = objectsToRemove(*this, all, keepUsedSince);
  for (const RecordedObject &object : objects.inOrder) {
    if (plan.bytesAfter <= maxBytes) return plan;
    plan.removedObjects.push_back(object.name);
    plan.bytesAfter -= std::min(plan.bytesAfter, object.bytes);
  }
  size_t trials = 0;
  for (const StoredUnit &unit : all) trials += unit.trials.size();
  // A unit's share of the database: its trials' rows, at the database's average a row.
  const double perTrial = trials ? double(db_->tableBytes()) / double(trials) : 0.0;
  std::map<std::string, uint64_t> footprint;  // what is left of each unit once other trees' objects went
  for (const StoredUnit &unit : all) {
    auto latest = objects.latestBytes.find(unit.key);
    footprint[unit.key] =
        uint64_t(perTrial * double(unit.trials.size())) + (latest == objects.latestBytes.end() ? 0 : latest->second);
  }
  plan.removedUnits = unitsToRemove(all, footprint, plan.bytesAfter, maxBytes, keepUsedSince);
  std::map<std::string, std::string> modules;
  for (const StoredUnit &unit : all) modules[unit.key] = unit.module;
  for (const std::string &key : plan.removedUnits) {
    plan.removedModules.push_back(modules[key]);
    plan.bytesAfter -= std::min(plan.bytesAfter, footprint[key]);
  }
  return plan;
}

StoreCleanup BuildStore::cleanup(uint64_t maxBytes, int64_t keepUsedSince) {
  StoreCleanup done = cleanupPlan(maxBytes, keepUsedSince);
  if (done.removedUnits.empty() && done.removedObjects.empty()) return done;
  // An object's rows stay: a link of that tree's objects then says its plain
  // object is missing (and ships as linked) rather than take them for plain.
  std::vector<std::string> objects = done.removedObjects;
  for (const std::string &key : done.removedUnits)
    for (const std::string &plain : plainObjectsOf(key)) objects.push_back(plain);
  {
    WriteTransaction transaction(*db_);
    for (const char *sql : {"DELETE FROM kept WHERE unit = ?", "DELETE FROM trials WHERE unit = ?",
                            "DELETE FROM objects WHERE unit = ?", "DELETE FROM units WHERE unit = ?"}) {
      Query remove(*db_, sql);
      for (const std::string &key : done.removedUnits) remove.bind(1, key).run();
    }
    refreshChoices();
    transaction.commit();
  }
  for (const std::string &plain : objects) {
    std::error_code ignored;
    fs::remove(recordedObjectPath(plain), ignored);
  }
  // VACUUM rewrites the database through the log: fold it back after.
  db_->compact();
  done.bytesAfter = bytesOnDisk();
  return done;
}

std::string BuildStore::integrity() const { return db_->integrity(); }

void BuildStore::merge(const BuildStore &other) {
  if (!(other.stored_ == stored_))
    throw InputError(describeInputProblem(other.location_, "",
                                          "was written under " + describeIdentity(other.stored_) + ", " +
                                              location_ + " under " + describeIdentity(stored_) +
                                              ": their sizes cannot be compared"));
  const std::vector<StoredUnit> units = other.units();
  const std::map<std::string, StoredVerdict> verdicts = other.verdicts();
  std::vector<std::pair<std::string, ObjectOrigin>> objects;
  for (Query row(*other.db_, ("SELECT hash, unit, pipeline, " + other.plainColumn_ + " FROM objects ORDER BY hash"));
       row.step();)
    objects.push_back({row.text(0), {row.text(1), row.text(2), row.text(3)}});
  // One transaction: the merge lands whole or not at all. The choices are
  // made again for every unit, since either store's verdicts may judge the
  // other's trials.
  WriteTransaction transaction(*db_);
  for (const auto &[pipeline, verdict] : verdicts) insertVerdict(pipeline, verdict);
  insertObjects(objects);
  for (const StoredLink &link : other.links()) insertLink(link);
  for (const StoredUnit &stored : units) {
    std::vector<StoredTrial> trials;
    for (const auto &[pipeline, trial] : stored.trials) trials.push_back(trial);
    insertTrials(stored.key, stored.module, stored.cxx, trials, stored.used);
  }
  refreshChoices();
  transaction.commit();
}

}  // namespace mlgo::store
