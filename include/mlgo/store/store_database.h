#pragma once
// How a project's store keeps its rows: one interface over the two
// databases a store can live in. BuildStore (build_store.h) says what the
// rows mean and writes them in SQL both understand (`?` and `?N`
// placeholders, INSERT ... ON CONFLICT, CASE rather than two-argument
// min/max); each backend makes its own schema and answers what SQL cannot
// ask portably (its size, its integrity, its compaction).
//
// - SQLite (sqlite_database.h): a file, the embedded default, which the
//   compiles of one machine's -j build write at once.
// - PostgreSQL (postgres_database.h): `postgresql://...`, one store for the
//   builds of many machines.
//
// Writes are transactions that hold the store's one write lock from their
// start (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock): a unit's
// choices are read and written again within them, so two writers never
// interleave, on one machine or many.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mlgo::store {

/// A store that cannot be reached now: its server is down or unreachable,
/// refused the login, or dropped the connection. Not the input's fault: a
/// compile builds as clang would then (launcher/store_outage.h).
struct StoreUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One statement's rows, as a backend runs it.
class Cursor {
 public:
  virtual ~Cursor() = default;
  virtual void bindText(int index, const std::string &text) = 0;
  virtual void bindInteger(int index, int64_t value) = 0;
  virtual void bindNull(int index) = 0;
  /// Runs the statement the first time; true while rows come.
  virtual bool step() = 0;
  /// Ready to run again with new bindings.
  virtual void reset() = 0;
  virtual std::string text(int column) const = 0;
  virtual bool isNull(int column) const = 0;
  virtual int64_t integer(int column) const = 0;
};

/// Whether the store is only read (a store that exists, left as it is) or
/// also written (created when it does not exist).
enum class StoreAccess { ReadWrite, ReadOnly };

class StoreDatabase {
 public:
  virtual ~StoreDatabase() = default;
  /// A statement with `?`/`?N` placeholders. Throws InputError naming the
  /// store for SQL the database refuses, StoreUnavailable when it is gone.
  virtual std::unique_ptr<Cursor> prepare(const std::string &sql) = 0;
  /// Statements without parameters.
  virtual void execute(const std::string &sql) = 0;
  /// A write transaction, holding the store's write lock from its start.
  virtual void beginWrite() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;

  /// What messages name: the file, or the server's address without its
  /// password.
  virtual const std::string &location() const = 0;
  /// Makes the schema of a store with nothing in it yet, writing `meta` as
  /// its meta rows, and brings an older format's schema up to date. Throws
  /// InputError naming the store when it holds something else.
  virtual void setUp(const std::vector<std::pair<std::string, std::string>> &meta) = 0;
  /// Checks the store is a whole store of mlgo's (InputError saying why not).
  virtual void requireWholeStore() const = 0;
  virtual bool hasColumn(const std::string &table, const std::string &column) const = 0;
  /// The database's bytes on disk (the recorded objects are counted apart).
  virtual uint64_t bytes() const = 0;
  /// The bytes of its tables alone (SQLite: without its write-ahead log):
  /// what a row's share is estimated from.
  virtual uint64_t tableBytes() const = 0;
  /// "ok", or the problems the database's own check finds, one a line.
  virtual std::string integrity() const = 0;
  /// Gives back the space of removed rows.
  virtual void compact() = 0;
  /// Leaves the store as one self-contained whole (SQLite: the log folded
  /// into the file, before it is renamed or copied).
  virtual void finishAsOneFile() = 0;
};

/// Whether `location` names a PostgreSQL store (a libpq URI:
/// postgresql://... or postgres://...) rather than an SQLite file.
bool isPostgresLocation(const std::string &location);

/// `location` as messages, logs and manifests show it: a URI's password
/// (user:PASSWORD@ or password=...) left out.
std::string shownLocation(const std::string &location);

/// Where this machine keeps a store's local files: the recorded objects
/// (BASE.objects/) and the gate's compiled programs (BASE.gate-programs/).
/// An SQLite store's are beside its file (BASE is the file's absolute
/// path); a PostgreSQL store's in the user's cache
/// ($XDG_CACHE_HOME/mlgo/stores/, else ~/.cache/mlgo/stores/), named by
/// the store's shown location.
std::filesystem::path localStoreBase(const std::string &location);

/// Opens the store at `location` with the backend its form names. Throws
/// InputError naming the location when it is not a store mlgo can use,
/// StoreUnavailable when its server cannot be reached.
std::unique_ptr<StoreDatabase> openStoreDatabase(const std::string &location, StoreAccess access);

/// A statement of a store, with its rows.
class Query {
 public:
  Query(StoreDatabase &database, const std::string &sql) : cursor_(database.prepare(sql)) {}
  Query &bind(int index, const std::string &text) {
    cursor_->bindText(index, text);
    return *this;
  }
  Query &bind(int index, int64_t value) {
    cursor_->bindInteger(index, value);
    return *this;
  }
  Query &bindNull(int index) {
    cursor_->bindNull(index);
    return *this;
  }
  bool step() { return cursor_->step(); }
  /// Runs it to its end and makes it ready for new bindings.
  void run() {
    while (step()) {
    }
    cursor_->reset();
  }
  std::string text(int column) const { return cursor_->text(column); }
  bool isNull(int column) const { return cursor_->isNull(column); }
  int64_t integer(int column) const { return cursor_->integer(column); }

 private:
  std::unique_ptr<Cursor> cursor_;
};

/// A write transaction, rolled back unless committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(StoreDatabase &database) : database_(database) { database_.beginWrite(); }
  ~WriteTransaction() {
    if (!committed_) database_.rollback();
  }
  WriteTransaction(const WriteTransaction &) = delete;
  WriteTransaction &operator=(const WriteTransaction &) = delete;
  void commit() {
    database_.commit();
    committed_ = true;
  }

 private:
  StoreDatabase &database_;
  bool committed_ = false;
};

}  // namespace mlgo::store
