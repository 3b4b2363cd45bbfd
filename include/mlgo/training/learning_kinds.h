#pragma once
// One bundle per kind of decision, the LibTorch half (libmlgo_training): how
// train-bc clones the kind's decisions and how train-ppo's actor samples and
// scores them. The other half is mlgo/training/decision_kinds.h.
#include <filesystem>
#include <memory>
#include <optional>

#include "mlgo/trace/decision_spec.h"
#include "mlgo/training/cloning/cloning_task.h"
#include "mlgo/training/ppo/ppo_actor.h"

namespace mlgo {

struct LearningKindBundle {
  trace::DecisionKind kind;
  /// train-bc: the trace's decisions, the loss and the policy the network becomes.
  std::unique_ptr<CloningTask> (*cloningTask)(const BCOptions &options, const BCSettings &settings,
                                              const trace::TraceReader &reader, const Problem &problem);
  /// train-ppo: the actor over the policy in `startingPolicy` (or, for
  /// yes/no decisions, a new one over `vocab`).
  std::unique_ptr<PPOActor> (*ppoActor)(const Problem &problem,
                                        const std::optional<std::filesystem::path> &startingPolicy,
                                        const std::filesystem::path &vocab, const PPOSettings &settings);
};

/// The bundle of `kind`; std::logic_error for a kind with none.
const LearningKindBundle &learningKindBundle(trace::DecisionKind kind);

}  // namespace mlgo
