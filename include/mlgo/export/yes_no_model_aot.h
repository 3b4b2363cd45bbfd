#pragma once
// `mlgo export --format llvm-aot`: a yes/no policy as C++ source for a
// release-mode LLVM build. The generated class, the one the policy's problem
// names (Problem::releaseModeModel: llvm::InlinerSizeModel for inlining), has
// the interface LLVM 19's ReleaseModeModelRunner<T> calls (llvm/Analysis/
// ReleaseModeModelRunner.h): inputs "feed_<feature>" (int64, LLVM's feature
// names), output "fetch_<decision>" (int64). Vocab boundaries, preprocessing
// and weights are compiled in; it needs only the C++ standard library, and
// Run() allocates nothing.
#include <filesystem>
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/policy/yes_no_policy.h"

namespace mlgo {

/// The C++ of `policy`, a policy of yes/no decisions whose problem LLVM runs
/// in release mode. `origin` is quoted in the generated comment (where the
/// policy came from). Throws InputError for another policy.
GeneratedSources generateYesNoModel(const YesNoPolicy &policy, const std::string &origin);

/// Writes CLASS.h and CLASS.cpp into `directory`, atomically: a complete
/// directory or none; returns what it wrote. Throws UsageError when the
/// directory exists and `replace` is false.
GeneratedSources exportLlvmAot(const YesNoPolicy &policy, const std::string &origin,
                               const std::filesystem::path &directory, bool replace);

}  // namespace mlgo
