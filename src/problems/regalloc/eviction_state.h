#pragma once
// What an EvictionHook shares with the advisor LLVM creates on the compiling
// thread (eviction_advisor.cpp).
#include <map>
#include <string>
#include <vector>

#include "mlgo/problems/regalloc/eviction_hook.h"

namespace mlgo::regalloc {

struct EvictionHook::State {
  EvictionSteer *steer = nullptr;
  double score = 0;
  std::map<std::string, double> functionScores;
  uint64_t decisions = 0;
  uint64_t changed = 0;
  std::vector<std::string> problems;

  void reportProblem(std::string text) {
    // One compile can repeat a problem at every decision; the first few say it.
    if (problems.size() < 10) problems.push_back(std::move(text));
  }
};

/// The state of the EvictionHook active on this thread, or null.
EvictionHook::State *activeEvictionState();

}  // namespace mlgo::regalloc
