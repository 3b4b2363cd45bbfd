#pragma once
// `mlgo cc --record DIR`: every unit a build compiles in-process goes into a
// corpus in extract-ir's layout (mlgo/corpus/corpus.h) as it compiles, with
// no embedded bitcode and no second build. The many compiles of a `-j` build
// record at once: each writes its own files atomically, then adds its name
// to corpus_description.json under a lock on DIR/.mlgo-record.lock, so the
// description always lists complete modules. A unit recorded again (a
// rebuild after a change) replaces its files.
#include <filesystem>
#include <string>

namespace mlgo::launcher {

/// Writes NAME.bc and NAME.cmd (`commandLine` as clang's .llvmcmd section
/// holds it) into `corpus` and lists NAME in its description. Throws
/// InputError naming the file when NAME would leave the corpus or the
/// corpus is a ThinLTO one.
/// Makes the corpus directory `corpus` if it does not exist; UsageError
/// ("--record DIR: ...") when it is not a directory or cannot be written:
/// checked before anything compiles, as an unusable --log is.
void checkRecordDirectory(const std::filesystem::path &corpus);

void recordUnit(const std::filesystem::path &corpus, const std::string &module, const std::string &bitcode,
                const std::string &commandLine);

}  // namespace mlgo::launcher
