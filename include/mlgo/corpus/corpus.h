#pragma once
// A training corpus in LLVM's extract_ir layout (llvm/utils/mlgo-utils):
//   <dir>/corpus_description.json  {"has_thinlto": false, "modules": ["a/b.o", ...]}
//   <dir>/a/b.o.bc                 the module's pre-optimization bitcode
//   <dir>/a/b.o.cmd                its clang -cc1 command line, '\0'-separated
//   <dir>/a/b.o.thinlto.bc         with "has_thinlto": true, the module's
//                                  ThinLTO index; the .bc is then the
//                                  post-import module the ThinLTO backend
//                                  optimizes (docs/formats.md)
// Corpora written by mlgo, by LLVM's extract_ir and by ml-compiler-opt are
// interchangeable.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mlgo {

struct CorpusModule {
  /// The name listed in corpus_description.json, relative to the corpus.
  std::string name;
  std::filesystem::path bitcodePath;
  /// The recorded cc1 arguments (or the corpus-wide override).
  std::vector<std::string> commandLine;
  /// In a ThinLTO corpus, the module's index (<name>.thinlto.bc); empty
  /// otherwise. The module then compiles as the ThinLTO backend does.
  std::filesystem::path thinltoIndexPath;
  /// Non-empty when the module's files could not be read; compiling the module
  /// then fails with this reason instead of ending the run.
  std::string loadError;
  /// Where the frontend left its module's name counter
  /// (mlgo/driver/name_counter.h), when known: mlgo cc compiles its own
  /// frontend's module. 0 for a corpus's modules.
  unsigned nameCounter = 0;
  /// The bitcode is this process's own frontend's (mlgo cc): the IR verifier
  /// is skipped, as clang skips it between its frontend and its passes. A
  /// corpus's bitcode is input from elsewhere and always verified.
  bool fromOwnFrontend = false;
};

struct Corpus {
  std::filesystem::path directory;
  bool hasThinLTO = false;
  std::vector<CorpusModule> modules;

  /// Loads and validates a corpus. Throws InputError naming the file and the
  /// entry for a malformed description or a module name that would escape the
  /// corpus directory (corpora are untrusted data).
  static Corpus load(const std::filesystem::path &directory);
};

/// Whether a module was compiled as C++: its recorded `-x` language or
/// `-main-file-name` extension, or a C++ `-std=`.
bool isCxxModule(const CorpusModule &module);

/// Positions in `modules` (indices into corpus.modules) by the module's
/// bitcode size, largest first, ties in the order given; an unreadable
/// module counts as empty. Work handed out in this order starts the longest
/// searches early, so a run does not end on one large module alone.
std::vector<size_t> largestModulesFirst(const Corpus &corpus, const std::vector<size_t> &modules);

inline constexpr const char *kCorpusDescriptionFile = "corpus_description.json";
/// The suffix of a ThinLTO module's index file, after the module's name.
inline constexpr const char *kThinLTOIndexSuffix = ".thinlto.bc";

/// Splits the contents of a .cmd file ('\0'-separated, as clang records it).
std::vector<std::string> parseRecordedCommandLine(std::string_view contents);
/// The inverse of parseRecordedCommandLine.
std::string formatRecordedCommandLine(const std::vector<std::string> &args);

/// True when `name` is a relative path that stays inside the directory it is
/// joined to: not absolute, no "..", no empty or "." components.
bool isContainedRelativePath(std::string_view name);

/// Writes corpus_description.json atomically, so a directory whose extraction
/// was interrupted never looks complete.
void writeCorpusDescription(const std::filesystem::path &directory,
                            const std::vector<std::string> &moduleNames, bool hasThinLTO);

}  // namespace mlgo
