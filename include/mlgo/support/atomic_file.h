#pragma once
// Writes that never leave a half-written file behind: content goes to a
// temporary name in the same directory and is renamed over the target, so a
// reader sees either the old file or the complete new one.
#include <filesystem>
#include <string_view>

namespace mlgo {

/// Writes `content` to a file mlgo names itself (a cache entry, a file
/// inside an output directory) atomically, creating parent directories.
/// Whatever else stands at the name (a named pipe, a link to a device) is
/// replaced, never opened: opening a planted pipe would block the run.
/// Throws InputError naming the path when a directory stands there,
/// std::runtime_error naming it on other failures.
void writeFileAtomically(const std::filesystem::path &path, std::string_view content);

/// Writes `content` to a file the user named (`-o`, `--json`, `--output
/// FILE`): atomically like writeFileAtomically, but an existing device, named
/// pipe or socket, or a link to one (`/dev/null`, `/dev/stdout`), is written
/// through, as clang writes `-o`: replacing `-o /dev/null` run as root would
/// replace the device itself.
void writeOutputFile(const std::filesystem::path &path, std::string_view content);

/// Whether `path` (links followed) exists and is neither a regular file nor
/// a directory: a device, a named pipe or a socket.
bool isSpecialFile(const std::filesystem::path &path);

/// writeFileAtomically(root / relative), refusing (InputError naming the
/// link) when a directory on the way below `root` is a symbolic link: files
/// named by untrusted data stay inside the directory they are written to. A
/// link or a special file at the name itself is replaced, never followed.
void writeFileInside(const std::filesystem::path &root, const std::filesystem::path &relative,
                     std::string_view content);

/// Replaces directory `target` by the complete directory `complete` (a
/// sibling): target is first renamed to target.old, then complete to target,
/// then target.old is removed. A process killed in between leaves target.old,
/// which existingDirectory() finds.
void replaceDirectory(const std::filesystem::path &complete, const std::filesystem::path &target);
/// `target`, or target.old when a replaceDirectory() was interrupted; empty
/// when neither exists.
std::filesystem::path existingDirectory(const std::filesystem::path &target);

/// The file `path` names, absolute, with links followed (a link to a link
/// too) and its directory canonical: where a file shared through a link
/// really is, so that what belongs beside it (a log, a temporary for
/// replacing it) goes beside it, and replacing it keeps the link. A dangling
/// link gives the name it points to.
std::filesystem::path linkTarget(const std::filesystem::path &path);

/// Reads a whole file. Throws InputError naming the path when it cannot.
std::string readFile(const std::filesystem::path &path);

/// Why `path` is not a regular file ("" when it is): inputs are read only
/// from regular files, so that a named pipe or a device (/dev/zero) in a
/// corpus or given as a flag can never hang or exhaust a run. Links are
/// followed.
std::string regularFileProblem(const std::filesystem::path &path);
/// InputError naming the file when regularFileProblem has a reason.
void requireRegularFile(const std::filesystem::path &path);

}  // namespace mlgo
