#pragma once
// A linker map (`-Wl,-Map=FILE`) read as the list of input sections the
// linker kept, each with the file it came from and the output section it went
// to. GNU ld's and lld's formats both. Sections --gc-sections dropped are not
// in it, and of a C++ inline function compiled into several objects only the
// copy the linker kept appears: what a unit contributes to what ships.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/driver/compile_result.h"

namespace mlgo::launcher {

enum class SectionKind { Text, Data, Bss, NotLoaded };

/// The kind of an output section by its name, as llvm-size's columns count
/// it: executable code, other loaded bytes (read-only and writable data,
/// unwind tables), zero-filled, or not loaded at all (debug info, comments).
SectionKind outputSectionKind(std::string_view name);

struct KeptSection {
  std::string file;     ///< the input file as the link named it: "a.o", "lib/libx.a(m.o)"
  std::string section;  ///< the input section, e.g. ".text.main"
  std::string output;   ///< the output section it went to, e.g. ".text"
  uint64_t size = 0;
  SectionKind kind = SectionKind::NotLoaded;  ///< of `output`
};

/// Every input section of non-zero size in `map`, in order. Throws
/// InputError naming `mapName` when the text is neither format.
std::vector<KeptSection> parseLinkMap(std::string_view map, const std::string &mapName);

/// Adds `section`'s bytes to `sizes` by its kind (text; data: every other
/// loaded byte; bss); a section not loaded adds nothing.
void addKeptSection(SectionSizes &sizes, const KeptSection &section);

/// "lib/libx.a(m.o)" -> {"lib/libx.a", "m.o"}; a plain file -> {file, ""}.
std::pair<std::string, std::string> splitArchiveMember(const std::string &file);

}  // namespace mlgo::launcher
