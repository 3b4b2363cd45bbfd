#include "mlgo/store/sqlite_database.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <unistd.h>

#include <sqlite3.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo::store {

namespace fs = std::filesystem;

namespace {

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

/// Another connection holds a lock SQLite's busy handler does not wait for
/// (a journal-mode change while another compile creates the store).
struct StoreBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &location, int status, const std::string &message) {
  if ((status & 0xff) == SQLITE_BUSY || (status & 0xff) == SQLITE_LOCKED)
    throw StoreBusy(location + ": SQLite: " + message);
  throw InputError(describeInputProblem(location, "", "SQLite: " + message));
}

class SqliteCursor : public Cursor {
 public:
  SqliteCursor(sqlite3 *db, const std::string &sql, const std::string &location) : location_(location) {
    if (const int status = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr); status != SQLITE_OK)
      fail(location_, sqlite3_errcode(db), sqlite3_errmsg(db));
  }
  ~SqliteCursor() override { sqlite3_finalize(statement_); }
  void bindText(int index, const std::string &text) override {
    sqlite3_bind_text(statement_, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
  }
  void bindInteger(int index, int64_t value) override { sqlite3_bind_int64(statement_, index, value); }
  void bindNull(int index) override { sqlite3_bind_null(statement_, index); }
  bool step() override {
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status != SQLITE_DONE) {
      sqlite3 *db = sqlite3_db_handle(statement_);
      fail(location_, sqlite3_errcode(db), sqlite3_errmsg(db));
    }
    return false;
  }
  void reset() override {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  std::string text(int column) const override {
    const auto *value = sqlite3_column_text(statement_, column);
    return value ? std::string(reinterpret_cast<const char *>(value), size_t(sqlite3_column_bytes(statement_, column)))
                 : std::string();
  }
  bool isNull(int column) const override { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  int64_t integer(int column) const override { return sqlite3_column_int64(statement_, column); }

 private:
  sqlite3_stmt *statement_ = nullptr;
  const std::string &location_;
};

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

class SqliteDatabase : public StoreDatabase {
 public:
  SqliteDatabase(const fs::path &path, StoreAccess access) : location_(path.string()), file_(linkTarget(path)) {
    if (fs::is_directory(file_))
      throw InputError(describeInputProblem(location_, "", "is a directory: the store is one SQLite file"));
    if (!fs::is_directory(file_.parent_path()))
      throw InputError(describeInputProblem(location_, "", "its directory does not exist"));
    if (access == StoreAccess::ReadOnly && !fs::is_regular_file(file_))
      throw InputError(describeInputProblem(location_, "", "no store there"));
    if (access == StoreAccess::ReadWrite)
      if (const std::string why = unwritable(file_); !why.empty())
        throw InputError(describeInputProblem(location_, "", why));
    const int flags =
        access == StoreAccess::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(file_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw InputError(describeInputProblem(location_, "", "cannot open the store: " + message));
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  }
  ~SqliteDatabase() override { sqlite3_close(db_); }

  std::unique_ptr<Cursor> prepare(const std::string &sql) override {
    return std::make_unique<SqliteCursor>(db_, sql, location_);
  }
  void execute(const std::string &sql) override {
    char *error = nullptr;
    if (const int status = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error); status != SQLITE_OK) {
      const std::string message = error ? error : sqlite3_errmsg(db_);
      sqlite3_free(error);
      fail(location_, status, message);
    }
  }
  // BEGIN IMMEDIATE: the write lock up front, so two compiles never
  // deadlock upgrading a read.
  void beginWrite() override { execute("BEGIN IMMEDIATE"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  const std::string &location() const override { return location_; }

  void setUp(const std::vector<std::pair<std::string, std::string>> &meta) override {
    // Compiles that open a new store at once can find it locked where
    // SQLite does not wait: the setup is tried again then.
    for (int attempt = 0;; ++attempt) {
      try {
        setUpOnce(meta);
        return;
      } catch (const StoreBusy &) {
        if (attempt == 2000) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + attempt % 20));
      }
    }
  }

  void requireWholeStore() const override {
    int64_t id = 0;
    try {
      id = single("PRAGMA application_id");
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
    if (!why.empty()) throw InputError(describeInputProblem(location_, "", "not a store of mlgo's (" + why + ")"));
  }

  bool hasColumn(const std::string &table, const std::string &column) const override {
    for (SqliteCursor row(db_, "PRAGMA table_info(" + table + ")", location_); row.step();)
      if (row.text(1) == column) return true;
    return false;
  }

  uint64_t bytes() const override {
    uint64_t bytes = 0;
    std::error_code error;
    for (const std::string suffix : {"", "-wal", "-shm"}) {
      const uintmax_t size = fs::file_size(file_.string() + suffix, error);
      if (!error) bytes += size;
    }
    return bytes;
  }

  uint64_t tableBytes() const override {
    std::error_code error;
    const uintmax_t size = fs::file_size(file_, error);
    return error ? 0 : size;
  }

  std::string integrity() const override {
    std::string found;
    for (SqliteCursor row(db_, "PRAGMA integrity_check", location_); row.step();)
      found += (found.empty() ? "" : "\n") + row.text(0);
    return found;
  }

  // VACUUM rewrites the database through the log: fold it back after.
  void compact() override {
    execute("VACUUM");
    execute("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  void finishAsOneFile() override {
    execute("PRAGMA wal_checkpoint(TRUNCATE)");
    execute("PRAGMA journal_mode=DELETE");
  }

 private:
  int64_t single(const std::string &sql) const {
    SqliteCursor row(db_, sql, location_);
    return row.step() ? row.integer(0) : 0;
  }

  void setUpOnce(const std::vector<std::pair<std::string, std::string>> &meta) {
    if (!isStoreOrEmpty())
      throw InputError(describeInputProblem(location_, "", "is an SQLite database but not a store of mlgo's"));
    execute("PRAGMA journal_mode=WAL");
    execute("PRAGMA synchronous=FULL");
    // Every compile of a build opens the store: a store whose schema is
    // whole is only read here (a write is a synced transaction).
    if (!hasWholeSchema()) {
      beginWrite();
      try {
        execute(kSchema);
        execute("PRAGMA application_id=" + std::to_string(kApplicationId));
        // A new store takes this mlgo's identity; one that exists keeps its own.
        if (single("SELECT count(*) FROM meta") == 0) {
          SqliteCursor insert(db_, "INSERT INTO meta(key, value) VALUES(?, ?)", location_);
          for (const auto &[key, value] : meta) {
            insert.bindText(1, key);
            insert.bindText(2, value);
            while (insert.step()) {
            }
            insert.reset();
          }
        }
        commit();
      } catch (...) {
        rollback();
        throw;
      }
    }
    upgradeOlderFormats();
  }

  std::string format() const {
    SqliteCursor row(db_, "SELECT value FROM meta WHERE key = 'format'", location_);
    return row.step() ? row.text(0) : std::string();
  }

  /// Format 1 had no units.used and no links; objects had no plain column.
  void upgradeOlderFormats() {
    if (format() == "1") {
      WriteTransaction transaction(*this);
      if (format() == "1") {  // else another compile upgraded it meanwhile
        execute("ALTER TABLE units ADD COLUMN used INTEGER NOT NULL DEFAULT 0");
        execute(kSchema);  // the links table
        execute("UPDATE meta SET value = '2' WHERE key = 'format'");
      }
      transaction.commit();
    }
    if (!hasColumn("objects", "plain")) {
      WriteTransaction transaction(*this);
      if (!hasColumn("objects", "plain")) execute("ALTER TABLE objects ADD COLUMN plain TEXT NOT NULL DEFAULT ''");
      transaction.commit();
    }
  }

  /// Every table of the schema is there and the identity is written.
  bool hasWholeSchema() const {
    int64_t tables = 0;
    bool hasMeta = false;
    for (SqliteCursor row(db_, "SELECT count(*), sum(name = 'meta') FROM sqlite_master WHERE type = 'table'",
                          location_);
         row.step();) {
      tables = row.integer(0);
      hasMeta = row.integer(1) > 0;
    }
    int64_t schemaTables = 0;
    for (const char *at = kSchema; (at = std::strstr(at, "CREATE TABLE")); ++at) ++schemaTables;
    if (!hasMeta || single("SELECT count(*) FROM meta") == 0) return false;
    // A format-1 store has every table but links.
    return tables == schemaTables || (tables == schemaTables - 1 && format() == "1");
  }

  /// An mlgo store, or a database with nothing in it yet.
  bool isStoreOrEmpty() {
    int64_t id = 0, objects = 0;
    // One read transaction: another compile may be creating the store.
    execute("BEGIN");
    try {
      id = single("PRAGMA application_id");
      objects = single("SELECT count(*) FROM sqlite_master");
    } catch (...) {
      rollback();
      throw;
    }
    execute("COMMIT");
    return id == kApplicationId || (id == 0 && objects == 0);
  }

  std::string location_;  ///< as given: what messages name
  fs::path file_;         ///< links followed: what SQLite opens
  sqlite3 *db_ = nullptr;
};

}  // namespace

std::unique_ptr<StoreDatabase> openSqliteDatabase(const fs::path &path, StoreAccess access) {
  return std::make_unique<SqliteDatabase>(path, access);
}

}  // namespace mlgo::store
