#pragma once
// `mlgo export --format llvm-aot`: a policy as C++ source for a release-mode
// LLVM build. The generated class llvm::InlinerSizeModel has the interface
// LLVM 19's ReleaseModeModelRunner<T> calls (llvm/Analysis/
// ReleaseModeModelRunner.h): inputs "feed_<feature>" (int64, LLVM's feature
// names), output "fetch_inlining_decision" (int64). Vocab boundaries,
// preprocessing and weights are compiled in; it needs only the C++ standard
// library, and Run() allocates nothing.
#include <filesystem>
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/policy/policy_model.h"

namespace mlgo {

constexpr const char *kAotHeaderName = "InlinerSizeModel.h";
constexpr const char *kAotSourceName = "InlinerSizeModel.cpp";

/// The C++ of `policy` (an inlining policy). `origin` is quoted in the
/// generated comment (where the policy came from).
GeneratedSources generateInlinerSizeModel(const PolicyModel &policy, const std::string &origin);

/// Writes InlinerSizeModel.h and InlinerSizeModel.cpp into `directory`,
/// atomically: a complete directory or none. Throws UsageError when it exists
/// and `replace` is false.
void exportLlvmAot(const PolicyModel &policy, const std::string &origin, const std::filesystem::path &directory,
                   bool replace);

}  // namespace mlgo
