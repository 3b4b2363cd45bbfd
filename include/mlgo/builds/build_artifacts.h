#pragma once
// What a build left: its linked files (executables and shared libraries)
// and its objects, with their section sizes. Linked sizes are what a user
// ships: C++ inline and template functions compiled into every object are
// kept once, and --gc-sections drops what nothing references, so a change
// summed over objects can differ a lot from the linked one.
#include <filesystem>
#include <map>
#include <string>

#include "mlgo/driver/compile_result.h"

namespace mlgo::builds {

struct BuildArtifacts {
  /// Executables and shared libraries (ELF, not objects), by path relative
  /// to the tree; symbolic links are left out (a library's names).
  std::map<std::string, SectionSizes> linked;
  /// Relocatable objects (.o files), summed.
  SectionSizes objects;
  size_t objectCount = 0;
};

/// Every ELF file below `tree`, measured.
BuildArtifacts findArtifacts(const std::filesystem::path &tree);

}  // namespace mlgo::builds
