#pragma once
// `mlgo extract-ir`: turns the objects of a build made with
// -Xclang -fembed-bitcode=all into a corpus (see corpus.h for the layout), or
// the post-import modules of a ThinLTO build (thinlto_modules.h).
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/thinlto_modules.h"

namespace mlgo {

enum class ExtractInputType { CompileCommands, ObjectList };

struct ExtractOptions {
  std::filesystem::path input;
  ExtractInputType inputType = ExtractInputType::CompileCommands;
  std::filesystem::path outputDirectory;
  /// Keep only modules with a recorded argument matching this ECMAScript
  /// regex (searched, as extract_ir's re.findall does), e.g. "^-O2|-Os|-Oz$".
  std::optional<std::string> commandFilter;
  unsigned threads = 0;  ///< 0: all cores
  /// Local: the modules are the linker's saved post-import modules below the
  /// input's directory (the input itself when it is a directory), not the
  /// input's entries. Distributed: the input's entries are backend compiles.
  ThinLTOBuild thinlto = ThinLTOBuild::None;
  /// The link's LTO optimization level (lld's --lto-O; clang passes 2 for
  /// -O2, -Os and -Oz), for local ThinLTO builds.
  unsigned thinltoOptLevel = 2;
};

struct ExtractSummary {
  std::vector<std::string> moduleNames;  ///< in input order
  std::map<std::string, size_t> skippedByReason;
  /// One line per skipped entry: "<origin>: <object>: <reason>".
  std::vector<std::string> warnings;
  size_t extracted() const { return moduleNames.size(); }
  size_t skipped() const;
};

/// Extracts every usable entry in parallel, writes <module>.bc/.cmd and, last,
/// corpus_description.json (atomically). Throws InputError when the input file
/// is unreadable or malformed, UsageError for an invalid --cmd-filter. Writes
/// no description when nothing was extracted.
ExtractSummary extractIR(const ExtractOptions &options);

}  // namespace mlgo
