#pragma once
// A store that cannot be reached (its server down, unreachable, refusing the
// login, or dropping the connection mid-build) never breaks a build: each
// compile and link builds as clang would, and the build says so once, not
// once per unit.
#include <string>

namespace mlgo::launcher {

/// Warns that the store at `location` (as shown: no password) is
/// unavailable for `why`, unless a compile of the same build (the same
/// session, in the last ten minutes) warned already: a marker file in the
/// temporary directory, made exclusively, tells. True when it warned.
bool warnStoreUnavailable(const std::string &location, const std::string &why);

}  // namespace mlgo::launcher
