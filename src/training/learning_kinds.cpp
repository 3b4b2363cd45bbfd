#include "mlgo/training/learning_kinds.h"

#include "mlgo/training/decision_kinds.h"

namespace mlgo {

namespace {

/// The registry: one line per kind of decision.
const LearningKindBundle kBundles[] = {
    {trace::DecisionKind::YesNo, makeYesNoCloningTask, makeYesNoPPOActor},
    {trace::DecisionKind::Position, makePositionCloningTask, makePositionPPOActor},
    {trace::DecisionKind::Continuous, makeContinuousCloningTask, makeContinuousPPOActor},
};

}  // namespace

const LearningKindBundle &learningKindBundle(trace::DecisionKind kind) { return bundleOfKind(kBundles, kind); }

}  // namespace mlgo
