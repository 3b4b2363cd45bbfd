#pragma once
// What a compiler command does, read the way clang's own driver reads it
// (response files expanded first, as clang's main() does): `mlgo cc`
// compiles in-process only a command that clang-19 would run as one frontend
// job turning one C or C++ source into one object. An LTO compile or link
// gets what applies there (a policy through mlgo's pass plugin); every other
// compile of source code runs the real compiler and is reported, never
// silently; everything else (preprocessing, assembling, plain links,
// queries, other compilers) runs the real compiler unchanged.
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo::launcher {

enum class CommandKind {
  Other,       ///< compiles no C or C++ source: nothing of mlgo's applies
  Compile,     ///< one C or C++ source to one object: compiled in-process
  Unapplied,   ///< compiles source in a way mlgo does not reproduce (plainReason says how)
  LtoCompile,  ///< -flto or -flto=thin: the link optimizes what this compiles
  LtoLink,     ///< a link with -flto: the link-time backends optimize
};

struct CompilePlan {
  CommandKind kind = CommandKind::Other;
  /// Why the real compiler runs the command; empty for CommandKind::Compile.
  std::string plainReason;
  std::filesystem::path compiler;  ///< the compiler executable, symlinks resolved
  std::vector<std::string> cc1;    ///< the frontend job's arguments, from "-cc1" on
  std::filesystem::path source;    ///< as the job names it (the first one where several)
  std::filesystem::path object;    ///< as the job names it
  /// The frontend's optimization level: 0 for -O0 or no -O flag at all
  /// (clang's default), where mlgo leaves the unit as clang compiles it.
  unsigned optimizationLevel = 0;
  bool links = false;        ///< runs a linker (also after compiling, in one command)
  bool linksWithLld = false; ///< that linker is lld (the one whose LTO backends load pass plugins)
  std::filesystem::path linkOutput;  ///< what the link writes, as the job names it
  bool inProcess() const { return kind == CommandKind::Compile; }
  bool optimizes() const { return optimizationLevel > 0; }
};

/// The executable `compiler` names: a path, or a name looked up in PATH.
/// Empty when there is none.
std::filesystem::path findCompiler(const std::string &compiler);

/// `args` with each `@file` replaced by the file's arguments, as clang's
/// main() expands them (GNU quoting, nested files, paths relative to the
/// working directory). Empty with `error` set when a file cannot be read.
std::vector<std::string> expandResponseFiles(const std::vector<std::string> &args, std::string &error);

/// Plans `compiler args...` (args without the compiler itself) the way
/// clang-19's driver would, without running anything.
CompilePlan planCompile(const std::string &compiler, const std::vector<std::string> &args);

}  // namespace mlgo::launcher
