#pragma once
// What the linker kept of each translation unit, read from the linker maps
// `mlgo cc --link-maps DIR` had every link write: per linked file, the bytes
// of each unit's input sections that made it in. C++ inline functions
// compiled into several objects count for the one unit whose copy was kept,
// and sections --gc-sections dropped count for nobody: a unit's kept bytes
// are what it contributes to what ships.
#include <filesystem>
#include <map>
#include <string>

#include "mlgo/driver/compile_result.h"

namespace mlgo::builds {

struct KeptBytes {
  /// Linked file -> unit -> bytes kept (text; data: every other loaded
  /// byte; bss), both as paths relative to the build tree.
  std::map<std::string, std::map<std::string, SectionSizes>> byLinkedFile;
  /// Linked file -> input section -> the unit whose copy was kept, for the
  /// section names only one unit's input has there (a COMDAT group's
  /// ".text._Z3bigi", not ".text"): where an inline function's kept copy
  /// moves between units.
  std::map<std::string, std::map<std::string, std::string>> sectionOwners;
  /// A unit's bytes summed over every linked file.
  std::map<std::string, SectionSizes> byUnit() const;
};

/// Reads every NAME.map with its NAME.json in `maps`. The build ran at
/// `buildRoot` (where the tree was while it was built); `tree` is where its
/// objects are now, for archive members (named by the member alone in a
/// map). Input files outside the tree (crt files, system libraries) are left
/// out. Throws InputError naming a map that neither linker wrote.
KeptBytes attributeLinkMaps(const std::filesystem::path &maps, const std::filesystem::path &buildRoot,
                            const std::filesystem::path &tree);

}  // namespace mlgo::builds
