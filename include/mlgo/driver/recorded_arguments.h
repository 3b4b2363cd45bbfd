#pragma once
#include <string>
#include <vector>

namespace mlgo {

/// The cc1 arguments that compile `bitcodePath` as its recorded command line
/// says: the recorded ones without "-cc1", output, input language and inputs,
/// followed by "-x ir <bitcodePath>". The in-process driver parses exactly
/// these; `clang -cc1 <these> -o out.o` is the subprocess it must match.
///
/// For a module of a ThinLTO corpus (`thinltoModule`), a recorded
/// -fthinlto-index= is dropped too: the index is the corpus's own file beside
/// the module, never a path the command names (ml-compiler-opt replaces it the
/// same way). Elsewhere it stays, and is refused as a file read.
std::vector<std::string> argumentsForBitcode(const std::vector<std::string> &recorded,
                                             const std::string &bitcodePath, bool thinltoModule = false);

/// What the clang subprocess adds to argumentsForBitcode to compile a ThinLTO
/// module as the ThinLTO backend does with the module already imported.
std::vector<std::string> thinltoBackendArguments(const std::string &indexPath);

}  // namespace mlgo
