#pragma once
// A store on a PostgreSQL server (`--store postgresql://...`), through
// Debian's libpq: one store for the builds of many machines. Its tables are
// the SQLite store's (docs/formats.md), with 64-bit integers and byte-order
// ("C") collation, so that rows come in the same order from both; writes
// hold one advisory lock, as SQLite's writers hold its file's.
//
// Credentials come from libpq's own environment and files (PGPASSWORD,
// PGPASSFILE, PGSERVICE, ...) or the URI; what messages show of the URI
// leaves its password out (shownLocation). A connection gives up after
// five seconds unless the URI or PGCONNECT_TIMEOUT says otherwise.
#include <memory>
#include <string>

#include "mlgo/store/store_database.h"

namespace mlgo::store {

/// Connects to the store at `uri`. Throws StoreUnavailable when the server
/// cannot be reached or refuses the login (or this backend's library cannot
/// be loaded), InputError naming the store when its tables are not a store
/// of mlgo's (or, read-only, there is none).
std::unique_ptr<StoreDatabase> openPostgresDatabase(const std::string &uri, StoreAccess access);

/// The backend is a library of its own, beside libmlgo_core.so, loaded on
/// the first PostgreSQL store a process opens (store_database.cpp): libpq
/// brings some twenty libraries (TLS, Kerberos, LDAP) that every compile of
/// `mlgo cc` would map and relocate (a store compile: 44 libraries and
/// 34,147 relocations with them, 23 and 25,999 without). It exports one C
/// function, kPostgresLibraryEntry, returning its openPostgresDatabase.
inline constexpr const char *kPostgresLibraryFile = "libmlgo_postgres.so";
inline constexpr const char *kPostgresLibraryEntry = "mlgo_postgres_open";
using OpenPostgresDatabase = std::unique_ptr<StoreDatabase> (*)(const std::string &uri, StoreAccess access);

}  // namespace mlgo::store
