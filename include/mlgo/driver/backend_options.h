#pragma once
// Which -mllvm options a corpus may record. A corpus is untrusted data, and
// LLVM's command-line options include ones that write files (-print-after-all
// with -ir-dump-directory, -info-output-file, -stats-json), open viewers or
// load code. LLVM applies them to the whole process, so mlgo applies only
// options known to tune the code that is generated (an allow-list); a module
// recording any other is refused with the option named.
#include <string>
#include <vector>

namespace mlgo {

struct AllowedBackendOption {
  std::string pattern;  ///< an option name, or a family "prefix-*"
  std::string what;     ///< what it tunes
};

/// The allow-list, in the order `mlgo mllvm-options` prints it.
const std::vector<AllowedBackendOption> &allowedBackendOptions();

/// Words that mark an option as doing something besides code generation
/// (files, directories, printing, viewers, timers, logs, channels). A word of
/// the option's name ("-"-separated) that starts with one refuses it even in
/// an allowed family (a future "inline-...-file"); "runtime" or "indirect" do
/// not.
const std::vector<std::string> &sideEffectWords();

/// Why `option` (as recorded after -mllvm, e.g. "-inline-threshold=500") may
/// not be applied, or empty when it may.
std::string refusedBackendOption(const std::string &option);

}  // namespace mlgo
