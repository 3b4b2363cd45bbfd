#pragma once
// LLVM's regalloc score (calculateRegAllocScore summed over a compile's
// functions) as both register-allocation problems report it: the module's
// measure, and per function its reward segments.
#include <map>
#include <string>

#include "mlgo/problems/problem.h"

namespace mlgo::regalloc {

/// The measure's name in baselines.json, eval and train-es.
inline constexpr const char *kScoreMeasure = "regalloc_score";

/// The score a `Hook` (EvictionHook, PriorityHook) measured; nothing from
/// another problem's hook.
template <class Hook>
std::map<std::string, double> scoreMeasures(const PipelineHook &hook) {
  const auto *measured = dynamic_cast<const Hook *>(&hook);
  if (!measured) return {};
  return {{kScoreMeasure, measured->score()}};
}

/// The same per function.
template <class Hook>
SegmentMeasures functionScoreMeasures(const PipelineHook &hook) {
  const auto *measured = dynamic_cast<const Hook *>(&hook);
  if (!measured) return {};
  return {{kScoreMeasure, measured->functionScores()}};
}

}  // namespace mlgo::regalloc
