#pragma once
// A store in one SQLite file (the embedded default): every compile of a -j
// build opens it and writes it at once. WAL mode with full syncs: a build
// killed at any moment leaves the store consistent and loses nothing
// committed.
#include <filesystem>
#include <memory>

#include "mlgo/store/store_database.h"

namespace mlgo::store {

/// Opens the store file at `path` (a link is followed to its file). Throws
/// InputError naming the path and saying why when it is not a store of
/// mlgo's, cannot be opened, or (to be written) it or its directory cannot
/// be written; a read-only open also when there is no file.
std::unique_ptr<StoreDatabase> openSqliteDatabase(const std::filesystem::path &path, StoreAccess access);

}  // namespace mlgo::store
