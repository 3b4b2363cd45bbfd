#pragma once
// `mlgo export --format llvm-aot` of a yes/no policy (inlining): C++ source
// for a release-mode LLVM build. The generated class, the one the policy's
// problem names (Problem::releaseModeModel: llvm::InlinerSizeModel for
// inlining), has
// the interface LLVM 19's ReleaseModeModelRunner<T> calls (llvm/Analysis/
// ReleaseModeModelRunner.h): inputs "feed_<feature>" (int64, LLVM's feature
// names), output "fetch_<decision>" (int64). Vocab boundaries, preprocessing
// and weights are compiled in; it needs only the C++ standard library, and
// Run() allocates nothing.
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"

namespace mlgo {

/// The C++ of `policy` as `model` (the class and decision names of its
/// problem). `origin` is quoted in the generated comment (where the policy
/// came from). Throws InputError when the network does not end in the two
/// logits of a yes/no decision.
GeneratedSources generateYesNoModel(const YesNoPolicy &policy, const ReleaseModeModel &model,
                                    const std::string &origin);

}  // namespace mlgo
