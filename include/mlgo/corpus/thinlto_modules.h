#pragma once
// What `mlgo extract-ir --thinlto-build local|distributed` reads: the
// post-import modules a ThinLTO build's backend optimizes, their index files
// and the command lines their backend runs with (docs/formats.md, "ThinLTO
// corpora").
//
// - local (lld's in-process backend): linking with -Wl,--save-temps=import
//   -Wl,--thinlto-emit-index-files leaves <object>.3.import.bc and
//   <object>.thinlto.bc beside each bitcode input (archive members as
//   "lib.a(member.o at N)"). The command line is the one the object was
//   compiled with (its llvm.cmdline, from -Xclang -fembed-bitcode=all), made
//   into the backend's: the link's LTO level, lld's function and data
//   sections and vectorizers.
// - distributed: the backend compiles (clang -x ir obj -fthinlto-index=...)
//   run with -mllvm -lto-embed-bitcode=post-merge-pre-opt, which embeds the
//   post-import module and the backend's cc1 command line in the native
//   object (-Xclang -fembed-bitcode=all would crash clang-19 there).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/compile_commands.h"

namespace mlgo {

enum class ThinLTOBuild { None, Local, Distributed };

/// One module's files, ready to be written to a corpus.
struct ExtractedModuleFiles {
  std::string bitcode;
  std::string commandLine;  ///< '\0'-separated cc1 arguments
  std::string index;
  std::string problem;  ///< summary key when unusable
  std::string detail;
};

inline constexpr const char *kLocalImportSuffix = ".3.import.bc";

/// Every <base>.3.import.bc below `root`, as entries whose objectPath is
/// <base> and whose module name is <base> relative to `root`; sorted by name.
std::vector<ObjectEntry> findLocalThinLTOModules(const std::filesystem::path &root);

/// Reads <base>.3.import.bc, <base>.thinlto.bc and the module's recorded
/// command line, made into the backend's for a link at LTO level `ltoLevel`.
ExtractedModuleFiles readLocalThinLTOModule(const std::filesystem::path &base, unsigned ltoLevel);

/// Reads a distributed backend compile's native object: the post-import
/// module, the cc1 command line (its build-only -lto-embed-bitcode option
/// dropped) and the index its -fthinlto-index= names, relative to the
/// compile's directory.
ExtractedModuleFiles readDistributedThinLTOModule(const ObjectEntry &entry);

/// The backend command line lld's in-process ThinLTO backend amounts to, for a
/// module compiled with `compile` (its cc1 arguments) and linked at LTO level
/// `ltoLevel`. It names the index as <indexName>, relative to the module, for
/// ml-compiler-opt, which replaces the value; mlgo reads the corpus's file.
std::vector<std::string> localBackendCommandLine(const std::vector<std::string> &compile, unsigned ltoLevel,
                                                 const std::string &indexName);

}  // namespace mlgo
