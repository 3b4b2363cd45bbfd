#pragma once
// The reference the in-process driver is held to: `clang-19 -cc1 <recorded
// args> -x ir module.bc -o module.o` as a subprocess, sizes read from the
// object it writes. Used by `mlgo eval --check-fidelity` and its benchmark,
// never on a training path.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo {

/// Finds clang-19: `requested` if given, else clang-19 on PATH, else LLVM 19's
/// bin directory. Returns empty when none exists.
std::string findClang(const std::string &requested);

/// Compiles `module` with a clang subprocess, writing the object into
/// `scratchDirectory` (removed again afterwards). `extraArguments` go after
/// the recorded ones (e.g. -mllvm flags of LLVM's interactive mode).
CompileResult compileWithClangSubprocess(const std::string &clang, const CorpusModule &module,
                                         const std::filesystem::path &scratchDirectory,
                                         std::chrono::milliseconds timeout,
                                         const std::vector<std::string> &extraArguments = {});

}  // namespace mlgo
