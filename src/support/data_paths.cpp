#include "mlgo/support/data_paths.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

#include "mlgo/support/errors.h"

// The installed data directory relative to the installed library directory
// ("../share/mlgo" with GNUInstallDirs' defaults), set by CMake. Relative, so
// the installed tree can be moved or packaged under any prefix.
#ifndef MLGO_DATA_FROM_LIBRARY
#error "MLGO_DATA_FROM_LIBRARY must be defined by the build"
#endif

namespace mlgo {

namespace fs = std::filesystem;

namespace {
// The build tree's data directory, beside the libraries built there.
constexpr const char *kBuildTreeDataDirectory = "mlgo-data";
}  // namespace

fs::path coreLibraryDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&coreLibraryDirectory), &info) == 0 || info.dli_fname == nullptr)
    throw std::runtime_error("cannot locate libmlgo_core.so: the dynamic loader does not know it");
  // Absolute: a relative LD_LIBRARY_PATH entry gives a relative name, which
  // would mean another directory once the working directory changes.
  return fs::absolute(info.dli_fname).lexically_normal().parent_path();
}

fs::path findDataDirectory(const std::string &overrideDirectory, const fs::path &libraryDirectory) {
  if (!overrideDirectory.empty()) {
    if (!fs::is_directory(overrideDirectory))
      throw InputError(describeInputProblem(overrideDirectory, "",
                                            std::string("not a directory (named by $") + kDataDirectoryVariable + ")"));
    return fs::absolute(overrideDirectory);
  }
  const fs::path installed = (libraryDirectory / MLGO_DATA_FROM_LIBRARY).lexically_normal();
  if (fs::is_directory(installed)) return installed;
  const fs::path buildTree = libraryDirectory / kBuildTreeDataDirectory;
  if (fs::is_directory(buildTree)) return buildTree;
  throw InputError("mlgo's data directory is not at " + installed.string() + " (installed) nor at " +
                   buildTree.string() + " (build tree): reinstall mlgo or set $" + kDataDirectoryVariable);
}

fs::path dataDirectory() {
  const char *variable = std::getenv(kDataDirectoryVariable);
  return findDataDirectory(variable ? variable : "", coreLibraryDirectory());
}

fs::path dataPath(const fs::path &relative) { return dataDirectory() / relative; }

}  // namespace mlgo
