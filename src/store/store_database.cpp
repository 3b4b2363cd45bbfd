#include "mlgo/store/store_database.h"

#include <dlfcn.h>

#include <cstdlib>
#include <regex>

#include "mlgo/driver/compile_memo.h"
#include "mlgo/store/postgres_database.h"
#include "mlgo/store/sqlite_database.h"
#include "mlgo/support/data_paths.h"

namespace mlgo::store {

namespace fs = std::filesystem;

bool isPostgresLocation(const std::string &location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::string shownLocation(const std::string &location) {
  if (!isPostgresLocation(location)) return location;
  // user:PASSWORD@ in the authority, and password=... among the parameters.
  static const std::regex userPassword(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
  static const std::regex passwordParameter(R"(([?&])password=[^&]*&?)");
  std::string shown = std::regex_replace(location, userPassword, "$1@");
  shown = std::regex_replace(shown, passwordParameter, "$1");
  if (!shown.empty() && (shown.back() == '&' || shown.back() == '?')) shown.pop_back();
  return shown;
}

fs::path localStoreBase(const std::string &location) {
  if (!isPostgresLocation(location)) return fs::absolute(location);
  fs::path cache;
  if (const char *given = std::getenv("XDG_CACHE_HOME"); given && *given) cache = fs::path(given) / "mlgo";
  else if (const char *home = std::getenv("HOME"); home && *home) cache = fs::path(home) / ".cache" / "mlgo";
  else cache = fs::temp_directory_path() / "mlgo-cache";
  return cache / "stores" / ("postgresql-" + CompileMemo::hash(shownLocation(location)).substr(0, 16));
}

std::unique_ptr<StoreDatabase> openPostgresDatabase(const std::string &uri, StoreAccess access) {
  static const OpenPostgresDatabase open = [] {
    const fs::path path = coreLibraryDirectory() / kPostgresLibraryFile;
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      throw StoreUnavailable(std::string("PostgreSQL stores need ") + kPostgresLibraryFile + ": " + dlerror());
    using Entry = OpenPostgresDatabase (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kPostgresLibraryEntry));
    if (entry == nullptr)
      throw StoreUnavailable(path.string() + " has no entry point " + kPostgresLibraryEntry +
                             " (a library from another build?)");
    return entry();  // never unloaded: its connections' code lives there
  }();
  return open(uri, access);
}

std::unique_ptr<StoreDatabase> openStoreDatabase(const std::string &location, StoreAccess access) {
  if (isPostgresLocation(location)) return openPostgresDatabase(location, access);
  return openSqliteDatabase(location, access);
}

}  // namespace mlgo::store
