#pragma once
// What a compiler command does, read the way clang's own driver reads it:
// `mlgo cc` compiles in-process only a command that clang-19 would run as
// one frontend job turning one C or C++ source into one object. Everything
// else (linking, preprocessing, -S, -emit-llvm, assembly sources, several
// sources, -flto, other compilers) runs the real compiler unchanged.
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo::launcher {

struct CompilePlan {
  /// Empty when the command is one in-process compile; otherwise why the
  /// real compiler runs it (e.g. "links", "not clang-19").
  std::string plainReason;
  std::filesystem::path compiler;  ///< the compiler executable, symlinks resolved
  std::vector<std::string> cc1;    ///< the frontend job's arguments, from "-cc1" on
  std::filesystem::path source;    ///< as the job names it
  std::filesystem::path object;    ///< as the job names it
  bool inProcess() const { return plainReason.empty(); }
};

/// The executable `compiler` names: a path, or a name looked up in PATH.
/// Empty when there is none.
std::filesystem::path findCompiler(const std::string &compiler);

/// Plans `compiler args...` (args without the compiler itself) the way
/// clang-19's driver would, without running anything.
CompilePlan planCompile(const std::string &compiler, const std::vector<std::string> &args);

}  // namespace mlgo::launcher
