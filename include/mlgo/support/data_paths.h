#pragma once
// Where mlgo finds the data it ships: the autotune search space, the
// correctness gate's programs, the vocabularies and the training configs.
// Found relative to the loaded libmlgo_core.so, never through a path compiled
// in, so that an installed or packaged mlgo works wherever it is put.
#include <filesystem>
#include <string>

namespace mlgo {

/// The environment variable that names the data directory, over any other.
inline constexpr const char *kDataDirectoryVariable = "MLGO_DATA_DIR";

/// The directory of the loaded libmlgo_core.so, absolute. Throws
/// std::runtime_error when the dynamic loader cannot say.
std::filesystem::path coreLibraryDirectory();

/// mlgo's data directory (configs/, vocab/): see
/// findDataDirectory, with $MLGO_DATA_DIR and coreLibraryDirectory().
std::filesystem::path dataDirectory();

/// `relative` inside dataDirectory(); whether it exists is the caller's to check.
std::filesystem::path dataPath(const std::filesystem::path &relative);

/// The lookup behind dataDirectory(), its inputs explicit. The first of:
///  1. `overrideDirectory` ($MLGO_DATA_DIR) when not empty: it must be a directory;
///  2. the installed layout, `<prefix>/share/mlgo` seen from `<prefix>/lib`;
///  3. the build tree's `mlgo-data` beside the libraries, which CMake fills
///     with links into the source tree.
/// Throws InputError naming the places looked at when none is a directory.
std::filesystem::path findDataDirectory(const std::string &overrideDirectory,
                                        const std::filesystem::path &libraryDirectory);

}  // namespace mlgo
