#pragma once
// A unit's key that travels: the same for the same code wherever the tree is
// checked out or built (a CI workspace, a second build tree, a teammate's
// checkout), as ccache's base_dir makes its hashes.
//
// What is left out, and why it is safe: a unit's key only says which unit's
// trials and choices apply (the object is still compiled from the unit's own
// bitcode and command line, so __FILE__ and debug paths are the tree's own).
// Paths under the compile's directory and under the base directory become
// placeholders, in the command line and in the module's strings; debug
// information is left out of the module (it never changes the code: clang's
// -g invariant), and the output and dependency-file options are dropped.
// Two units whose keys are equal then differ in path strings at most, whose
// lengths move a few bytes of .rodata alike for every list: one unit's
// choice is the other's.
#include <filesystem>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace mlgo::launcher {

/// The directories whose paths a unit's key leaves out.
struct PathRoots {
  std::string directory;  ///< the compile's working directory (absolute)
  std::string base;       ///< "" for none
  /// The compile's roots: its working directory and `base`, or without one
  /// the project's root as the compile shows it: the deepest directory
  /// holding the working directory, the source file and the include
  /// directories the command line gives (-I, -iquote, -isystem, -idirafter)
  /// that lie near it (sharing more than their first component with it:
  /// /usr/include/libxml2 beside a tree in /home/me is not the project's).
  /// None when that is "/".
  static PathRoots of(const std::filesystem::path &directory, const std::filesystem::path &source,
                      const std::filesystem::path &base, const std::vector<std::string> &commandLine = {});
  /// `text` with each path under the working directory, then each under the
  /// base, written from a placeholder.
  std::string normalize(std::string text) const;
};

/// A hash of `module` without its paths and debug information. Changes the
/// module: call it last.
std::string portableModuleHash(llvm::Module &module, const PathRoots &roots);

/// The recorded command line (cc1 arguments, the source left out) without
/// the options that cannot change the code (output, dependency files) and
/// with its paths normalized.
std::vector<std::string> portableCommandLine(const std::vector<std::string> &commandLine, const PathRoots &roots);

}  // namespace mlgo::launcher
