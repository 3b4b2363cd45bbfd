#pragma once
// `mlgo extract-ir`: turns the objects of a build made with
// -Xclang -fembed-bitcode=all into a corpus (see corpus.h for the layout).
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
