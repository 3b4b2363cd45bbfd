#pragma once
// What a PriorityHook shares with the advisor LLVM creates on the compiling
// thread (priority_advisor.cpp).
#include <string>
#include <vector>

#include "mlgo/problems/regalloc/priority_hook.h"

namespace mlgo::regalloc {

struct PriorityHook::State {
  PrioritySteer *steer = nullptr;
  uint64_t decisions = 0;
  uint64_t changed = 0;
  std::vector<std::string> problems;

  void reportProblem(std::string text) {
    // One compile can repeat a problem at every decision; the first few say it.
    if (problems.size() < 10) problems.push_back(std::move(text));
  }
};

/// The state of the PriorityHook active on this thread, or null.
PriorityHook::State *activePriorityState();

}  // namespace mlgo::regalloc
