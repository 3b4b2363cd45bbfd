#pragma once
// A position policy deciding a stock compiler's evictions over LLVM's
// interactive channel (`mlgo serve --problem regalloc`).
#include <memory>

#include "mlgo/policy/position_policy.h"
#include "mlgo/serve/channel_policy.h"

namespace mlgo::regalloc {

std::unique_ptr<serve::ChannelPolicy> makeChannelPolicy(std::shared_ptr<const PositionPolicy> policy);

}  // namespace mlgo::regalloc
