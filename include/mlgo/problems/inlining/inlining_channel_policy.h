#pragma once
// An inlining policy served to a stock clang-19 (`mlgo serve`): reads LLVM
// 19's inlining features out of each observation, and the default decision
// when the compiler sends it (-inliner-interactive-include-default).
#include <memory>

#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/serve/channel_policy.h"
#include "mlgo/serve/interactive_server.h"

namespace mlgo::inlining {

std::unique_ptr<serve::ChannelPolicy> makeChannelPolicy(std::shared_ptr<const Policy> policy);

/// serve::serveChannel with `policy`'s channel policy (`policy` outlives it).
serve::ServeSummary serveInlining(const Policy &policy, const serve::ServeOptions &options);

}  // namespace mlgo::inlining
