#pragma once
// A priority policy served to a stock clang-19 or llc-19 (`mlgo serve` of a
// regalloc-priority policy): with -regalloc-enable-priority-advisor=release
// and a channel base, LLVM's ML priority advisor sends each live range's
// li_size, stage and weight and reads back a float priority.
#include <memory>

#include "mlgo/policy/continuous_policy.h"
#include "mlgo/serve/channel_policy.h"

namespace mlgo::regalloc {

std::unique_ptr<serve::ChannelPolicy> makePriorityChannelPolicy(std::shared_ptr<const ContinuousPolicy> policy);

}  // namespace mlgo::regalloc
