#pragma once
// clang's frontend in-process: a frontend job's source to the module clang
// would hand its optimization pipeline (what -fembed-bitcode=all records),
// as bitcode. Side outputs the job asks for (dependency files) are written as
// clang writes them; diagnostics are kept, not printed.
#include <cstdint>
#include <string>
#include <vector>

#include "mlgo/launcher/portable_unit.h"

namespace mlgo::launcher {

struct FrontendResult {
  bool ok = false;
  std::string bitcode;      ///< the unoptimized module
  unsigned nameCounter = 0; ///< its name counter (mlgo/driver/name_counter.h), which bitcode does not keep
  std::string diagnostics;  ///< clang's warnings and errors, as clang prints them
  /// Bytes of every source file the frontend read (the main file and each
  /// header once): what its own time grows with, the same on every run.
  uint64_t sourceBytes = 0;
  /// With recordCommandLine: the command line as -fembed-bitcode=all records
  /// it ('\0'-separated, extract-ir's .cmd) less that flag itself.
  std::string commandLine;
  /// With roots: the module's hash without its paths and debug information
  /// (portable_unit.h), what a store's key is made of.
  std::string portableHash;
};

/// Runs the frontend of `cc1` (the job's arguments, from "-cc1" on).
FrontendResult runFrontend(const std::vector<std::string> &cc1, bool recordCommandLine = false,
                           const PathRoots *roots = nullptr);

}  // namespace mlgo::launcher
