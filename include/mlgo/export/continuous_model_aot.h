#pragma once
// `mlgo export --format llvm-aot` of a continuous policy (register-allocation
// priority): C++ for the class a release-mode LLVM compiles in
// (llvm::RegAllocPriorityModel for MLRegallocPriorityAdvisor.cpp under
// LLVM_HAVE_TF_AOT_REGALLOCPRIORITYMODEL), with the interface LLVM 19's
// ReleaseModeModelRunner<T> calls: one input buffer per scalar feature of the
// policy's decision spec ("feed_<feature>"), the output "fetch_<decision>"
// (float: ContinuousPolicy::floatAnswer with the problem's largest value). Run()
// computes it bit for bit: the same squashing and z-scores, the same
// network, the same exponential (mlgo's portable arithmetic, compiled into the
// class), then rounds to float as LLVM reads the answer. Standard C++ only;
// Run() allocates nothing.
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"

namespace mlgo {

/// The C++ of `policy` as `model` (the class and decision names of its
/// problem). `origin` is quoted in the generated comment.
GeneratedSources generateContinuousModel(const ContinuousPolicy &policy, const ReleaseModeModel &model,
                                         const std::string &origin);

}  // namespace mlgo
