#include "mlgo/store/postgres_database.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <vector>

#include <libpq-fe.h>

#include "mlgo/support/errors.h"

namespace mlgo::store {

namespace {

/// The advisory lock every write holds ("mlgo" in ASCII): one writer at a
/// time, on every machine.
constexpr const char *kWriteLock = "SELECT pg_advisory_xact_lock(1835821935)";

constexpr const char *kTables[] = {"meta",  "units",   "trials",         "verdicts", "foreign_writers",
                                   "kept", "objects", "verified_links", "links"};

/// The SQLite schema's tables (sqlite_database.cpp) in PostgreSQL's types.
constexpr const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units(
  unit TEXT COLLATE "C" PRIMARY KEY, module TEXT COLLATE "C" NOT NULL, cxx BIGINT NOT NULL, choice TEXT COLLATE "C",
  used BIGINT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS trials(
  unit TEXT COLLATE "C" NOT NULL, pipeline TEXT COLLATE "C" NOT NULL, compiled BIGINT NOT NULL,
  text BIGINT NOT NULL, rodata BIGINT NOT NULL, data BIGINT NOT NULL, bss BIGINT NOT NULL,
  ir_instructions BIGINT NOT NULL, work BIGINT NOT NULL, PRIMARY KEY(unit, pipeline));
CREATE TABLE IF NOT EXISTS verdicts(
  pipeline TEXT COLLATE "C" PRIMARY KEY, passed BIGINT NOT NULL, cxx_link_only BIGINT NOT NULL,
  failure TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS foreign_writers(identity TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE IF NOT EXISTS kept(
  unit TEXT COLLATE "C" NOT NULL, pipeline TEXT COLLATE "C" NOT NULL, text BIGINT NOT NULL, data BIGINT NOT NULL,
  bss BIGINT NOT NULL, PRIMARY KEY(unit, pipeline));
CREATE TABLE IF NOT EXISTS objects(
  hash TEXT COLLATE "C" PRIMARY KEY, unit TEXT COLLATE "C" NOT NULL, pipeline TEXT COLLATE "C" NOT NULL,
  plain TEXT COLLATE "C" NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS verified_links(link TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE IF NOT EXISTS links(
  output TEXT COLLATE "C" PRIMARY KEY, shipped BIGINT NOT NULL, plain BIGINT NOT NULL, used BIGINT NOT NULL);
)sql";

/// libpq's parameter types (pg_type.h's oids): bigint and text.
constexpr Oid kInt8Oid = 20, kTextOid = 25;

std::string firstLine(const char *message) {
  std::string line = message ? message : "";
  line = line.substr(0, line.find('\n'));
  return line.empty() ? "no reason given" : line;
}

/// `sql` with `?N` as `$N` and each bare `?` as the next `$k` (SQLite's
/// numbering), outside quoted literals.
std::string withDollarParameters(const std::string &sql) {
  std::string out;
  int next = 0;
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') quoted = !quoted;
    if (c != '?' || quoted) {
      out += c;
      continue;
    }
    size_t end = i + 1;
    while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end]))) ++end;
    if (end > i + 1) {
      const int number = std::atoi(sql.substr(i + 1, end - i - 1).c_str());
      next = std::max(next, number);
      out += '$' + sql.substr(i + 1, end - i - 1);
      i = end - 1;
    } else {
      out += '$' + std::to_string(++next);
    }
  }
  return out;
}

class PostgresDatabase;

class PostgresCursor : public Cursor {
 public:
  PostgresCursor(PostgresDatabase &database, const std::string &sql)
      : database_(database), sql_(withDollarParameters(sql)) {}
  ~PostgresCursor() override { PQclear(result_); }
  void bindText(int index, const std::string &text) override { parameter(index) = {text, kTextOid}; }
  void bindInteger(int index, int64_t value) override { parameter(index) = {std::to_string(value), kInt8Oid}; }
  void bindNull(int index) override { parameter(index) = {std::nullopt, 0}; }
  bool step() override;
  void reset() override {
    PQclear(result_);
    result_ = nullptr;
    parameters_.clear();
  }
  std::string text(int column) const override {
    return std::string(PQgetvalue(result_, row_, column), size_t(PQgetlength(result_, row_, column)));
  }
  bool isNull(int column) const override { return PQgetisnull(result_, row_, column) != 0; }
  int64_t integer(int column) const override {
    return isNull(column) ? 0 : std::strtoll(PQgetvalue(result_, row_, column), nullptr, 10);
  }

 private:
  struct Parameter {
    std::optional<std::string> value;
    Oid type = 0;
  };
  Parameter &parameter(int index) {
    if (parameters_.size() < size_t(index)) parameters_.resize(size_t(index));
    return parameters_[size_t(index - 1)];
  }
  PostgresDatabase &database_;
  std::string sql_;
  std::vector<Parameter> parameters_;
  PGresult *result_ = nullptr;
  int row_ = -1;
};

class PostgresDatabase : public StoreDatabase {
 public:
  PostgresDatabase(const std::string &uri, StoreAccess access) : location_(shownLocation(uri)) {
    connect(uri);
    if (access == StoreAccess::ReadOnly) {
      if (tablesPresent() == 0) throw InputError(describeInputProblem(location_, "", "no store there"));
      requireWholeStore();
    }
  }
  ~PostgresDatabase() override { PQfinish(connection_); }

  std::unique_ptr<Cursor> prepare(const std::string &sql) override {
    return std::make_unique<PostgresCursor>(*this, sql);
  }
  void execute(const std::string &sql) override { PQclear(checked(PQexec(connection_, sql.c_str()))); }
  void beginWrite() override {
    execute("BEGIN");
    execute(kWriteLock);
  }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    if (PQstatus(connection_) == CONNECTION_OK) PQclear(PQexec(connection_, "ROLLBACK"));
  }
  const std::string &location() const override { return location_; }

  void setUp(const std::vector<std::pair<std::string, std::string>> &meta) override {
    // Every compile of a build opens the store: a whole one is only read.
    if (hasWholeSchema()) return;
    WriteTransaction transaction(*this);
    if (tablesPresent() > 0 && !hasColumn("meta", "value"))
      throw InputError(describeInputProblem(location_, "", "has tables of mlgo's names that are not a store of mlgo's"));
    execute(kSchema);
    if (count("SELECT count(*) FROM meta") == 0) {
      Query insert(*this, "INSERT INTO meta(key, value) VALUES(?, ?)");
      for (const auto &[key, value] : meta) insert.bind(1, key).bind(2, value).run();
    }
    transaction.commit();
  }

  void requireWholeStore() const override {
    if (!hasWholeSchema())
      throw InputError(describeInputProblem(location_, "", "not a store of mlgo's (its tables are incomplete)"));
  }

  // The catalog itself rather than information_schema's views: every
  // compile of a build asks, and the views cost milliseconds a question.
  bool hasColumn(const std::string &table, const std::string &column) const override {
    Query row(self(),
              "SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
              "WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ? AND a.attname = ? "
              "AND NOT a.attisdropped");
    return row.bind(1, table).bind(2, column).step();
  }

  uint64_t bytes() const override {
    return uint64_t(count(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = "
        "c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN " +
        tableList()));
  }

  uint64_t tableBytes() const override { return bytes(); }

  // The server checks its own pages; what is left to check is that the
  // store is whole.
  std::string integrity() const override { return hasWholeSchema() ? "ok" : "its tables are incomplete"; }

  // VACUUM FULL gives the removed rows' pages back (other compiles wait for
  // each table's rewrite, as for any write).
  void compact() override {
    for (const char *table : kTables) execute(std::string("VACUUM FULL ") + table);
  }
  void finishAsOneFile() override {}

  /// Runs `sql` with its parameters; StoreUnavailable when the connection
  /// is gone, InputError naming the store for anything else.
  PGresult *run(const std::string &sql, const std::vector<const char *> &values, const std::vector<Oid> &types,
                const std::vector<int> &lengths) {
    return checked(PQexecParams(connection_, sql.c_str(), int(values.size()), types.data(), values.data(),
                                lengths.data(), nullptr, 0));
  }

 private:
  StoreDatabase &self() const { return const_cast<PostgresDatabase &>(*this); }

  void connect(const std::string &uri) {
    // Keywords before dbname are defaults the URI may override.
    std::vector<const char *> keys, values;
    const char *timeout = std::getenv("PGCONNECT_TIMEOUT");
    if (!timeout || !*timeout) {
      keys.push_back("connect_timeout");
      values.push_back("5");
    }
    keys.push_back("application_name");
    values.push_back("mlgo");
    keys.push_back("dbname");
    values.push_back(uri.c_str());
    keys.push_back(nullptr);
    values.push_back(nullptr);
    connection_ = PQconnectdbParams(keys.data(), values.data(), 1);
    if (!connection_) throw StoreUnavailable(location_ + ": cannot connect to PostgreSQL: out of memory");
    if (PQstatus(connection_) != CONNECTION_OK)
      throw StoreUnavailable(location_ + ": cannot connect to PostgreSQL: " + firstLine(PQerrorMessage(connection_)));
    // The server's notices ("relation already exists, skipping") are not
    // the build's output.
    PQsetNoticeProcessor(connection_, [](void *, const char *) {}, nullptr);
  }

  PGresult *checked(PGresult *result) {
    const ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    const std::string message = firstLine(result ? PQresultErrorMessage(result) : PQerrorMessage(connection_));
    PQclear(result);
    if (PQstatus(connection_) != CONNECTION_OK)
      throw StoreUnavailable(location_ + ": lost the PostgreSQL server: " + message);
    throw InputError(describeInputProblem(location_, "", "PostgreSQL: " + message));
  }

  int64_t count(const std::string &sql) const {
    Query row(self(), sql);
    return row.step() ? row.integer(0) : 0;
  }

  static std::string tableList() {
    std::string list = "(";
    for (const char *table : kTables) list += std::string(list.size() > 1 ? ", '" : "'") + table + "'";
    return list + ")";
  }

  int64_t tablesPresent() const {
    return count("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename IN " +
                 tableList());
  }

  /// Asked by every compile's setUp and again as it reads the identity:
  /// once found whole, a store stays whole for this connection. The tables
  /// are made in one transaction with the meta row (PostgreSQL's DDL is
  /// transactional), so a `format` row says they are all there: two small
  /// queries on a new connection, where each catalog lookup is a cold one.
  bool hasWholeSchema() const {
    if (!whole_)
      whole_ = count("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'meta' AND relkind = 'r' AND "
                     "relnamespace = current_schema()::regnamespace") > 0 &&
               count("SELECT count(*) FROM meta WHERE key = 'format'") > 0;
    return whole_;
  }

  std::string location_;
  PGconn *connection_ = nullptr;
  mutable bool whole_ = false;
};

bool PostgresCursor::step() {
  if (!result_) {
    std::vector<const char *> values;
    std::vector<Oid> types;
    std::vector<int> lengths;
    for (const Parameter &parameter : parameters_) {
      values.push_back(parameter.value ? parameter.value->c_str() : nullptr);
      types.push_back(parameter.type);
      lengths.push_back(parameter.value ? int(parameter.value->size()) : 0);
    }
    result_ = database_.run(sql_, values, types, lengths);
    row_ = -1;
  }
  return ++row_ < PQntuples(result_);
}

}  // namespace

namespace {

std::unique_ptr<StoreDatabase> connect(const std::string &uri, StoreAccess access) {
  return std::make_unique<PostgresDatabase>(uri, access);
}

}  // namespace

}  // namespace mlgo::store

/// libmlgo_postgres.so's entry (kPostgresLibraryEntry).
extern "C" __attribute__((visibility("default"))) mlgo::store::OpenPostgresDatabase mlgo_postgres_open() {
  return &mlgo::store::connect;
}
