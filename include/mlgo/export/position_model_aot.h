#pragma once
// `mlgo export --format llvm-aot` of a position policy (register
// allocation's eviction): C++ for the class a release-mode LLVM compiles in
// (llvm::RegAllocEvictModel for MLRegAllocEvictAdvisor.cpp under
// LLVM_HAVE_TF_AOT_REGALLOCEVICTMODEL), with the interface LLVM 19's
// ReleaseModeModelRunner<T> calls: one input buffer per feature tensor of the
// policy's decision spec ("feed_<feature>", its type and shape), the output
// "fetch_<decision>" (int64: the chosen position, -1 when the mask allows
// none). Run() scores every allowed position as PositionPolicy::decide does,
// bit for bit: the same input squashing and z-scores, the same network, the
// same masked argmax. Standard C++ only; Run() allocates nothing.
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"

namespace mlgo {

/// The C++ of `policy` as `model` (the class and decision names of its
/// problem). `origin` is quoted in the generated comment.
GeneratedSources generatePositionModel(const PositionPolicy &policy, const ReleaseModeModel &model,
                                       const std::string &origin);

}  // namespace mlgo
