#include "mlgo/autotune/build_store.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <set>
#include <sstream>
#include <tuple>

#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>
#include <sqlite3.h>
#include <spdlog/fmt/fmt.h>

#include "mlgo/autotune/pass_pool.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;

namespace {

/// Changes when the schema's meaning does. Format 1 had no units.used: a
/// store of it is brought to format 2 when opened to be written.
constexpr const char *kStoreFormat = "2";
/// PRAGMA application_id: "mlgo".
constexpr int kApplicationId = 0x6d6c676f;
/// Compiles of a -j build wait this long for another's transaction.
constexpr int kBusyTimeoutMs = 120000;

constexpr const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units(
  unit TEXT PRIMARY KEY, module TEXT NOT NULL, cxx INTEGER NOT NULL, choice TEXT,
  used INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS trials(
  unit TEXT NOT NULL REFERENCES units(unit), pipeline TEXT NOT NULL, compiled INTEGER NOT NULL,
  text INTEGER NOT NULL, rodata INTEGER NOT NULL, data INTEGER NOT NULL, bss INTEGER NOT NULL,
  ir_instructions INTEGER NOT NULL, work INTEGER NOT NULL, PRIMARY KEY(unit, pipeline)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS verdicts(
  pipeline TEXT PRIMARY KEY, passed INTEGER NOT NULL, cxx_link_only INTEGER NOT NULL,
  failure TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS foreign_writers(identity TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kept(
  unit TEXT NOT NULL, pipeline TEXT NOT NULL, text INTEGER NOT NULL, data INTEGER NOT NULL,
  bss INTEGER NOT NULL, PRIMARY KEY(unit, pipeline), FOREIGN KEY(unit, pipeline) REFERENCES trials(unit, pipeline))
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS objects(
  hash TEXT PRIMARY KEY, unit TEXT NOT NULL, pipeline TEXT NOT NULL, plain TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS verified_links(link TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links(
  output TEXT PRIMARY KEY, shipped INTEGER NOT NULL, plain INTEGER NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;
)sql";

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

/// Another connection holds a lock SQLite's busy handler does not wait for
/// (a journal-mode change while another compile creates the store).
struct StoreBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One prepared statement, finalized with this.
class Statement {
 public:
  Statement(sqlite3 *db, const char *sql, const fs::path &file) : file_(file) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) fail(db);
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement &bind(int index, const std::string &text) {
    sqlite3_bind_text(statement_, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int index, int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
  }
  Statement &bindNull(int index) {
    sqlite3_bind_null(statement_, index);
    return *this;
  }
  /// Steps once: true while rows come.
  bool step() {
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status != SQLITE_DONE) fail(sqlite3_db_handle(statement_));
    return false;
  }
  void run() {
    while (step()) {
    }
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  std::string text(int column) const {
    const auto *value = sqlite3_column_text(statement_, column);
    return value ? std::string(reinterpret_cast<const char *>(value), size_t(sqlite3_column_bytes(statement_, column)))
                 : std::string();
  }
  bool isNull(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }

 private:
  [[noreturn]] void fail(sqlite3 *db) const {
    const int code = sqlite3_errcode(db) & 0xff;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
      throw StoreBusy(file_.string() + ": SQLite: " + sqlite3_errmsg(db));
    throw InputError(describeInputProblem(file_.string(), "", std::string("SQLite: ") + sqlite3_errmsg(db)));
  }
  sqlite3_stmt *statement_ = nullptr;
  const fs::path &file_;
};

/// A write transaction (BEGIN IMMEDIATE: the write lock up front, so two
/// compiles never deadlock upgrading a read), rolled back unless committed.
class WriteTransaction {
 public:
  WriteTransaction(sqlite3 *db, const fs::path &file) : db_(db), file_(file) { Statement(db, "BEGIN IMMEDIATE", file).run(); }
  ~WriteTransaction() {
    if (!committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    Statement(db_, "COMMIT", file_).run();
    committed_ = true;
  }

 private:
  sqlite3 *db_;
  const fs::path &file_;
  bool committed_ = false;
};

StoredTrial trialOfRow(const Statement &row, int first) {
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

Statement &bindKept(Statement &row, const std::string &unit, const std::string &pipeline, const SectionSizes &kept) {
  return row.bind(1, unit).bind(2, pipeline).bind(3, int64_t(kept.text)).bind(4, int64_t(kept.data)).bind(
      5, int64_t(kept.bss));
}

/// A unit without its trials from (module, cxx, choice, used) at `first`.
StoredUnit unitOfRow(const std::string &key, const Statement &row, int first) {
  StoredUnit unit{key, row.text(first), row.integer(first + 1) != 0, {}, std::nullopt, row.integer(first + 3)};
  if (!row.isNull(first + 2)) unit.choice = row.text(first + 2);
  return unit;
}

StoredVerdict verdictOfRow(const Statement &row, int first) {
  return {row.integer(first) != 0, row.integer(first + 1) != 0, row.text(first + 2)};
}

}  // namespace

std::string describeIdentity(const StoreIdentity &identity) {
  return "LLVM " + identity.llvm + ", search space " + identity.searchSpace.substr(0, 12) + ", cost model " +
         identity.costModel;
}

StoreIdentity storeIdentityOf(const SearchSpace &space) {
  return {LLVM_VERSION_STRING, searchSpaceHash(space), kCostModelVersion};
}

std::string unitKey(std::string_view bitcode, const std::vector<std::string> &commandLine) {
  return unitKeyOfHash(CompileMemo::hash(bitcode), commandLine);
}

std::string unitKeyOfHash(const std::string &bitcodeHash, const std::vector<std::string> &commandLine) {
  return CompileMemo::hash(bitcodeHash + '\n' + formatRecordedCommandLine(commandLine));
}

namespace {

/// Why a store cannot be changed at `file` ("" when it can): every compile
/// writes to it, and SQLite makes its log and shared memory beside it.
std::string unwritable(const fs::path &file) {
  if (::access(file.parent_path().c_str(), W_OK | X_OK) != 0)
    return "its directory " + file.parent_path().string() + " cannot be written (" + std::strerror(errno) +
           "): SQLite keeps the store's write-ahead log beside it";
  std::error_code missing;
  if (fs::exists(file, missing) && ::access(file.c_str(), W_OK) != 0)
    return std::string("cannot be written (") + std::strerror(errno) + "): every compile records its trials in it";
  return "";
}

}  // namespace

BuildStore::BuildStore(const fs::path &path, const StoreIdentity &identity)
    : BuildStore(path, identity, Access::ReadWrite) {}

BuildStore::BuildStore(const fs::path &path, const StoreIdentity &identity, Access access)
    : path_(path), file_(linkTarget(path)), identity_(identity) {
  if (fs::is_directory(file_))
    throw InputError(describeInputProblem(path_.string(), "", "is a directory: the store is one SQLite file"));
  if (!fs::is_directory(file_.parent_path()))
    throw InputError(describeInputProblem(path_.string(), "", "its directory does not exist"));
  if (access == Access::ReadWrite)
    if (const std::string why = unwritable(file_); !why.empty())
      throw InputError(describeInputProblem(path_.string(), "", why));
  const int flags = access == Access::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(file_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(describeInputProblem(path_.string(), "", "cannot open the store: " + message));
  }
  try {
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    if (access == Access::ReadOnly) {
      readIdentity();
      return;
    }
    // Compiles that open a new store at once can find it locked where
    // SQLite does not wait: the setup is tried again then.
    for (int attempt = 0;; ++attempt) {
      try {
        setUp();
        break;
      } catch (const StoreBusy &) {
        if (attempt == 2000) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + attempt % 20));
      }
    }
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

BuildStore::~BuildStore() { sqlite3_close(db_); }

void BuildStore::setUp() {
  if (!isStoreOrEmpty())
    throw InputError(describeInputProblem(path_.string(), "", "is an SQLite database but not a store of mlgo's"));
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=FULL");
  // Every compile of a build opens the store: a store whose schema is whole
  // is only read here (a write is a synced transaction).
  if (!hasWholeSchema()) {
    WriteTransaction transaction(db_, path_);
    exec(kSchema);
    exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
    // A new store takes this mlgo's identity; one that exists keeps its own.
    if (metaRows() == 0) {
      Statement insert(db_, "INSERT INTO meta(key, value) VALUES(?, ?)", path_);
      for (const auto &[key, value] : std::vector<std::pair<std::string, std::string>>{
               {"format", kStoreFormat},
               {"llvm", identity_.llvm},
               {"search_space", identity_.searchSpace},
               {"cost_model", identity_.costModel}}) {
        insert.bind(1, key).bind(2, value);
        insert.run();
      }
    }
    transaction.commit();
  }
  upgradeFromFormat1();
  readIdentity();
}

std::string BuildStore::metaValue(const std::string &key) const {
  Statement row(db_, "SELECT value FROM meta WHERE key = ?", path_);
  row.bind(1, key);
  return row.step() ? row.text(0) : std::string();
}

void BuildStore::upgradeFromFormat1() {
  if (metaValue("format") == "1") {
    WriteTransaction transaction(db_, path_);
    if (metaValue("format") == "1") {  // else another compile upgraded it meanwhile
      exec("ALTER TABLE units ADD COLUMN used INTEGER NOT NULL DEFAULT 0");
      exec(kSchema);  // the links table
      exec("UPDATE meta SET value = '2' WHERE key = 'format'");
    }
    transaction.commit();
  }
  if (!hasColumn("objects", "plain")) {
    WriteTransaction transaction(db_, path_);
    if (!hasColumn("objects", "plain")) exec("ALTER TABLE objects ADD COLUMN plain TEXT NOT NULL DEFAULT ''");
    transaction.commit();
  }
}

bool BuildStore::hasColumn(const std::string &table, const std::string &column) const {
  for (Statement row(db_, ("PRAGMA table_info(" + table + ")").c_str(), path_); row.step();)
    if (row.text(1) == column) return true;
  return false;
}

void BuildStore::readIdentity() {
  int64_t id = 0;
  try {
    Statement applicationId(db_, "PRAGMA application_id", path_);
    if (applicationId.step()) id = applicationId.integer(0);
  } catch (const InputError &) {
    id = -1;  // not an SQLite database at all
  }
  std::string why;
  if (id != kApplicationId) {
    std::error_code error;
    why = fs::file_size(file_, error) == 0 ? "an empty file"
          : id == -1                       ? "not an SQLite database"
                                           : "an SQLite database of another program";
  } else if (!hasWholeSchema()) {
    why = "its tables are incomplete";
  }
  if (!why.empty()) throw InputError(describeInputProblem(path_.string(), "", "not a store of mlgo's (" + why + ")"));
  std::map<std::string, std::string> meta;
  for (Statement row(db_, "SELECT key, value FROM meta", path_); row.step();) meta[row.text(0)] = row.text(1);
  // A format-1 store opened only to be read stays as it is: its units were never used since.
  if (meta["format"] != kStoreFormat && meta["format"] != "1")
    throw InputError(describeInputProblem(path_.string(), "meta.format",
                                          "is \"" + meta["format"] + "\"; this mlgo reads formats 1 and " +
                                              kStoreFormat));
  usedColumn_ = meta["format"] == "1" ? "0" : "used";
  // Before objects named their plain object, it was named by the unit's key.
  plainColumn_ = hasColumn("objects", "plain") ? "coalesce(nullif(plain, ''), unit)" : "unit";
  if (meta.count("cost_bound")) costBound_ = std::strtod(meta["cost_bound"].c_str(), nullptr);
  // A store from before the cost model was named has none: it is model 1's.
  stored_ = {meta["llvm"], meta["search_space"], meta.count("cost_model") ? meta["cost_model"] : "1"};
}

bool BuildStore::hasWholeSchema() const {
  int64_t tables = 0;
  bool hasMeta = false;
  for (Statement row(db_, "SELECT count(*), sum(name = 'meta') FROM sqlite_master WHERE type = 'table'", path_);
       row.step();) {
    tables = row.integer(0);
    hasMeta = row.integer(1) > 0;
  }
  int64_t schemaTables = 0;
  for (const char *at = kSchema; (at = std::strstr(at, "CREATE TABLE")); ++at) ++schemaTables;
  if (!hasMeta || metaRows() == 0) return false;
  // A format-1 store has every table but links.
  return tables == schemaTables || (tables == schemaTables - 1 && metaValue("format") == "1");
}

int64_t BuildStore::metaRows() const {
  Statement rows(db_, "SELECT count(*) FROM meta", path_);
  return rows.step() ? rows.integer(0) : 0;
}

bool BuildStore::isStoreOrEmpty() const {
  int64_t id = 0, objects = 0;
  // One read transaction: another compile may be creating the store.
  exec("BEGIN");
  try {
    {
      Statement applicationId(db_, "PRAGMA application_id", path_);
      if (applicationId.step()) id = applicationId.integer(0);
    }
    Statement tables(db_, "SELECT count(*) FROM sqlite_master", path_);
    if (tables.step()) objects = tables.integer(0);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
  return id == kApplicationId || (id == 0 && objects == 0);
}

std::unique_ptr<BuildStore> BuildStore::openExisting(const fs::path &path) {
  if (!fs::is_regular_file(path)) throw InputError(describeInputProblem(path.string(), "", "no store there"));
  // Read-only: a command that only reads a store leaves its bytes as they were.
  return std::unique_ptr<BuildStore>(new BuildStore(path, StoreIdentity{}, Access::ReadOnly));
}

void BuildStore::finishAsOneFile() {
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  exec("PRAGMA journal_mode=DELETE");
}

void BuildStore::exec(const char *sql) const {
  char *error = nullptr;
  if (const int status = sqlite3_exec(db_, sql, nullptr, nullptr, &error); status != SQLITE_OK) {
    const std::string message = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    if ((status & 0xff) == SQLITE_BUSY || (status & 0xff) == SQLITE_LOCKED)
      throw StoreBusy(path_.string() + ": SQLite: " + message);
    throw InputError(describeInputProblem(path_.string(), "", "SQLite: " + message));
  }
}

bool BuildStore::noteForeignWriter() {
  WriteTransaction transaction(db_, path_);
  Statement insert(db_, "INSERT OR IGNORE INTO foreign_writers(identity) VALUES(?)", path_);
  insert.bind(1, describeIdentity(identity_)).run();
  const bool first = sqlite3_changes(db_) > 0;
  transaction.commit();
  return first;
}

std::optional<StoredUnit> BuildStore::unit(const std::string &key) const {
  Statement row(db_, ("SELECT module, cxx, choice, " + usedColumn_ + " FROM units WHERE unit = ?").c_str(), path_);
  row.bind(1, key);
  if (!row.step()) return std::nullopt;
  StoredUnit unit = unitOfRow(key, row, 0);
  Statement trials(db_, kTrialsOfUnit, path_);
  trials.bind(1, key);
  while (trials.step()) {
    StoredTrial trial = trialOfRow(trials, 0);
    unit.trials.emplace(trial.pipeline, std::move(trial));
  }
  return unit;
}

int64_t BuildStore::nextUse() const {
  Statement latest(db_, "SELECT max(used) FROM units", path_);
  const int64_t last = latest.step() ? latest.integer(0) : 0;
  return std::max(millisecondsNow(), last + 1);
}

void BuildStore::noteUsed(const std::string &key) {
  {
    Statement row(db_, ("SELECT " + usedColumn_ + " FROM units WHERE unit = ?").c_str(), path_);
    row.bind(1, key);
    // A rebuild writes nothing within the hour: a write is a synced transaction.
    if (!row.step() || row.integer(0) > millisecondsNow() - kUseResolution) return;
  }
  WriteTransaction transaction(db_, path_);
  Statement update(db_, "UPDATE units SET used = max(used, ?) WHERE unit = ?", path_);
  update.bind(1, nextUse()).bind(2, key).run();
  // Which version of a module is current may have changed: so may the build's choices.
  refreshChoices();
  transaction.commit();
}

std::map<std::string, StoredVerdict> BuildStore::verdictsFor(const StoredUnit &unit) const {
  Statement verdictOf(db_, "SELECT passed, cxx_link_only, failure FROM verdicts WHERE pipeline = ?", path_);
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
  Statement update(db_, "UPDATE units SET choice = ? WHERE unit = ?", path_);
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
  WriteTransaction transaction(db_, path_);
  const std::vector<StoredUnit> all = units();
  const double price = autotune::explorationPrice(currentUnits(all), perUnit, budget);
  Statement row(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES('exploration_price', ?)", path_);
  row.bind(1, fmt::format("{} {} {} {}", perUnit, budget, price, nextUse())).run();
  transaction.commit();
  return price;
}

void BuildStore::setCostBound(double bound) {
  if (bound == costBound_) return;
  WriteTransaction transaction(db_, path_);
  Statement row(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES('cost_bound', ?)", path_);
  row.bind(1, fmt::format("{}", bound)).run();
  costBound_ = bound;
  refreshChoices();
  transaction.commit();
}

void BuildStore::recordTrials(const std::string &key, const std::string &module, bool cxx,
                              const std::vector<StoredTrial> &trials) {
  WriteTransaction transaction(db_, path_);
  insertTrials(key, module, cxx, trials, nextUse());
  refreshChoices();
  transaction.commit();
}

void BuildStore::insertTrials(const std::string &key, const std::string &module, bool cxx,
                              const std::vector<StoredTrial> &trials, int64_t used) {
  Statement unitRow(db_,
                    "INSERT INTO units(unit, module, cxx, choice, used) VALUES(?, ?, ?, NULL, ?) ON CONFLICT(unit) "
                    "DO UPDATE SET module = min(module, excluded.module), used = max(used, excluded.used)",
                    path_);
  unitRow.bind(1, key).bind(2, module).bind(3, int64_t(cxx)).bind(4, used).run();
  Statement trialRow(db_,
                     "INSERT OR IGNORE INTO trials(unit, pipeline, compiled, text, rodata, data, bss, ir_instructions, "
                     "work) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     path_);
  for (const StoredTrial &trial : trials) {
    trialRow.bind(1, key).bind(2, trial.pipeline).bind(3, int64_t(trial.compiled));
    trialRow.bind(4, int64_t(trial.sizes.text)).bind(5, int64_t(trial.sizes.rodata));
    trialRow.bind(6, int64_t(trial.sizes.data)).bind(7, int64_t(trial.sizes.bss));
    trialRow.bind(8, int64_t(trial.irInstructions)).bind(9, int64_t(trial.work)).run();
  }
  Statement keptRow(db_, "INSERT OR IGNORE INTO kept(unit, pipeline, text, data, bss) VALUES(?, ?, ?, ?, ?)", path_);
  for (const StoredTrial &trial : trials)
    if (trial.kept) bindKept(keptRow, key, trial.pipeline, *trial.kept).run();
}

void BuildStore::recordKept(const std::vector<KeptByLinker> &kept) {
  WriteTransaction transaction(db_, path_);
  // The latest build's attribution replaces an earlier one: what the linker
  // keeps of a unit depends on the other units it was linked with.
  Statement keptRow(db_,
                    "INSERT OR REPLACE INTO kept(unit, pipeline, text, data, bss) SELECT ?, ?, ?, ?, ? WHERE EXISTS "
                    "(SELECT 1 FROM trials WHERE unit = ?1 AND pipeline = ?2 AND compiled)",
                    path_);
  for (const KeptByLinker &entry : kept) bindKept(keptRow, entry.unit, entry.pipeline, entry.sizes).run();
  refreshChoices();
  transaction.commit();
}

void BuildStore::recordObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects) {
  WriteTransaction transaction(db_, path_);
  insertObjects(objects);
  transaction.commit();
}

void BuildStore::insertObjects(const std::vector<std::pair<std::string, ObjectOrigin>> &objects) {
  Statement row(db_, "INSERT OR REPLACE INTO objects(hash, unit, pipeline, plain) VALUES(?, ?, ?, ?)", path_);
  for (const auto &[hash, origin] : objects)
    row.bind(1, hash).bind(2, origin.unit).bind(3, origin.pipeline).bind(4, origin.plain).run();
}

std::optional<ObjectOrigin> BuildStore::objectOrigin(const std::string &hash) const {
  Statement row(db_, ("SELECT unit, pipeline, " + plainColumn_ + " FROM objects WHERE hash = ?").c_str(), path_);
  row.bind(1, hash);
  if (!row.step()) return std::nullopt;
  return ObjectOrigin{row.text(0), row.text(1), row.text(2)};
}

fs::path BuildStore::recordedObjectPath(const std::string &unit) const {
  return fs::path(file_.string() + ".objects") / (unit + ".o");
}

std::vector<std::string> BuildStore::plainObjectsOf(const std::string &unit) const {
  // A store from before objects named their plain object named it by the unit's key.
  std::set<std::string> names{unit};
  Statement row(db_, ("SELECT DISTINCT " + plainColumn_ + " FROM objects WHERE unit = ?").c_str(), path_);
  for (row.bind(1, unit); row.step();) names.insert(row.text(0));
  return {names.begin(), names.end()};
}

bool BuildStore::rekeyUnit(const std::string &from, const std::string &to) {
  WriteTransaction transaction(db_, path_);
  if (unit(to) || !unit(from)) return false;  // another compile moved it meanwhile
  // Its objects keep naming their plain objects by the old key (their name).
  for (const char *sql : {"UPDATE objects SET plain = unit WHERE unit = ?1 AND plain = ''","UPDATE units SET unit = ?2 WHERE unit = ?1", "UPDATE trials SET unit = ?2 WHERE unit = ?1",
                          "UPDATE kept SET unit = ?2 WHERE unit = ?1", "UPDATE objects SET unit = ?2 WHERE unit = ?1"}) {
    Statement update(db_, sql, path_);
    update.bind(1, from).bind(2, to).run();
  }
  refreshChoices();
  transaction.commit();
  return true;
}

bool BuildStore::linkVerified(const std::string &link) const {
  Statement row(db_, "SELECT 1 FROM verified_links WHERE link = ?", path_);
  row.bind(1, link);
  return row.step();
}

void BuildStore::recordVerifiedLink(const std::string &link) {
  WriteTransaction transaction(db_, path_);
  Statement(db_, "INSERT OR IGNORE INTO verified_links(link) VALUES(?)", path_).bind(1, link).run();
  transaction.commit();
}

void BuildStore::recordLink(const StoredLink &link) {
  WriteTransaction transaction(db_, path_);
  insertLink({link.output, link.shipped, link.plain, nextUse()});
  transaction.commit();
}

void BuildStore::insertLink(const StoredLink &link) {
  Statement row(db_,
                "INSERT INTO links(output, shipped, plain, used) VALUES(?, ?, ?, ?) ON CONFLICT(output) DO UPDATE SET "
                "shipped = excluded.shipped, plain = excluded.plain, used = excluded.used WHERE excluded.used >= used",
                path_);
  row.bind(1, link.output).bind(2, int64_t(link.shipped)).bind(3, int64_t(link.plain)).bind(4, link.used).run();
}

std::vector<StoredLink> BuildStore::links() const {
  std::vector<StoredLink> all;
  if (usedColumn_ != "used") return all;  // a format-1 store kept none
  for (Statement row(db_, "SELECT output, shipped, plain, used FROM links ORDER BY output", path_); row.step();)
    all.push_back({row.text(0), uint64_t(row.integer(1)), uint64_t(row.integer(2)), row.integer(3)});
  return all;
}

void BuildStore::insertVerdict(const std::string &pipeline, const StoredVerdict &verdict) {
  Statement insert(db_, "INSERT OR IGNORE INTO verdicts(pipeline, passed, cxx_link_only, failure) VALUES(?, ?, ?, ?)",
                   path_);
  insert.bind(1, pipeline).bind(2, int64_t(verdict.passed)).bind(3, int64_t(verdict.cxxLinkOnly));
  insert.bind(4, verdict.failure).run();
}

std::map<std::string, StoredVerdict> BuildStore::verdicts() const {
  std::map<std::string, StoredVerdict> verdicts;
  for (Statement row(db_, "SELECT pipeline, passed, cxx_link_only, failure FROM verdicts", path_); row.step();)
    verdicts[row.text(0)] = verdictOfRow(row, 1);
  return verdicts;
}

void BuildStore::recordVerdict(const std::string &pipeline, const StoredVerdict &verdict) {
  WriteTransaction transaction(db_, path_);
  insertVerdict(pipeline, verdict);
  refreshChoices();
  transaction.commit();
}

std::vector<std::string> BuildStore::winningPipelines() const {
  std::vector<std::string> pipelines;
  for (Statement row(db_,
                     "SELECT choice FROM units WHERE choice IS NOT NULL AND choice != '' GROUP BY choice "
                     "ORDER BY count(*) DESC, choice",
                     path_);
       row.step();)
    pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<std::string> BuildStore::lineageChoices(const std::string &module, const std::string &except) const {
  std::vector<std::string> pipelines;
  Statement row(db_,
                ("SELECT choice FROM units WHERE module = ? AND unit != ? AND choice IS NOT NULL AND choice != '' "
                 "ORDER BY " + usedColumn_ + " DESC, unit").c_str(),
                path_);
  row.bind(1, module).bind(2, except);
  while (row.step())
    if (std::find(pipelines.begin(), pipelines.end(), row.text(0)) == pipelines.end()) pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<std::string> BuildStore::gatedPipelines() const {
  std::vector<std::string> pipelines = winningPipelines();
  const std::set<std::string> winners(pipelines.begin(), pipelines.end());
  for (Statement row(db_,
                     "SELECT t.pipeline FROM trials t JOIN trials r ON r.unit = t.unit AND r.pipeline = '' "
                     "JOIN verdicts v ON v.pipeline = t.pipeline "
                     "WHERE t.pipeline != '' AND t.compiled AND v.passed "
                     "AND t.text + t.rodata + t.data < r.text + r.rodata + r.data "
                     "GROUP BY t.pipeline ORDER BY count(*) DESC, t.pipeline",
                     path_);
       row.step();)
    if (!winners.count(row.text(0))) pipelines.push_back(row.text(0));
  return pipelines;
}

std::vector<StoredUnit> BuildStore::units() const {
  std::vector<StoredUnit> all;
  std::map<std::string, size_t> index;
  for (Statement row(db_, ("SELECT unit, module, cxx, choice, " + usedColumn_ + " FROM units ORDER BY unit").c_str(),
                     path_);
       row.step();) {
    index[row.text(0)] = all.size();
    all.push_back(unitOfRow(row.text(0), row, 1));
  }
  for (Statement row(db_, kEveryTrial, path_); row.step();) {
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
  for (Statement row(db_, "SELECT identity FROM foreign_writers ORDER BY identity", path_); row.step();)
    summary.foreignWriters.push_back(row.text(0));
  summary.bytesOnDisk = bytesOnDisk();
  return summary;
}

uint64_t BuildStore::bytesOnDisk() const {
  uint64_t bytes = 0;
  std::error_code error;
  for (const std::string suffix : {"", "-wal", "-shm"}) {
    const uintmax_t size = fs::file_size(file_.string() + suffix, error);
    if (!error) bytes += size;
  }
  for (fs::directory_iterator entry(file_.string() + ".objects", error), end; !error && entry != end;
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
  const fs::path directory = store.recordedObjectPath("any").parent_path();
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
  std::error_code missing;
  const uintmax_t database = fs::file_size(file_, missing);
  // A unit's share of the database: its trials' rows, at the database's average a row.
  const double perTrial = trials && !missing ? double(database) / double(trials) : 0.0;
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
    WriteTransaction transaction(db_, path_);
    for (const char *sql : {"DELETE FROM kept WHERE unit = ?", "DELETE FROM trials WHERE unit = ?",
                            "DELETE FROM objects WHERE unit = ?", "DELETE FROM units WHERE unit = ?"}) {
      Statement remove(db_, sql, path_);
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
  exec("VACUUM");
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  done.bytesAfter = bytesOnDisk();
  return done;
}

std::string BuildStore::integrity() const {
  std::string found;
  for (Statement row(db_, "PRAGMA integrity_check", path_); row.step();) found += (found.empty() ? "" : "\n") + row.text(0);
  return found;
}

void BuildStore::merge(const BuildStore &other) {
  if (!(other.stored_ == stored_))
    throw InputError(describeInputProblem(other.path_.string(), "",
                                          "was written under " + describeIdentity(other.stored_) + ", " +
                                              path_.string() + " under " + describeIdentity(stored_) +
                                              ": their sizes cannot be compared"));
  const std::vector<StoredUnit> units = other.units();
  const std::map<std::string, StoredVerdict> verdicts = other.verdicts();
  std::vector<std::pair<std::string, ObjectOrigin>> objects;
  for (Statement row(other.db_, ("SELECT hash, unit, pipeline, " + other.plainColumn_ + " FROM objects ORDER BY hash").c_str(),
                     other.path_);
       row.step();)
    objects.push_back({row.text(0), {row.text(1), row.text(2), row.text(3)}});
  // One transaction: the merge lands whole or not at all. The choices are
  // made again for every unit, since either store's verdicts may judge the
  // other's trials.
  WriteTransaction transaction(db_, path_);
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

}  // namespace mlgo::autotune
