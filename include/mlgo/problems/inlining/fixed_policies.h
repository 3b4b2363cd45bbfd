#pragma once
// Policies that need no model: LLVM's default heuristic seen through the hook,
// and the two extremes.
#include <memory>
#include <optional>
#include <string>

#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo::inlining {

enum class FixedChoice { Default, Never, Always };

std::optional<FixedChoice> parseFixedChoice(const std::string &name);
const char *fixedChoiceName(FixedChoice choice);
std::shared_ptr<const Policy> makeFixedPolicy(FixedChoice choice);

}  // namespace mlgo::inlining
