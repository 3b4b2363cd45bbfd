#include "mlgo/training/learning_kinds.h"

#include <stdexcept>
#include <string>

namespace mlgo {

namespace {

/// The registry: one line per kind of decision.
const LearningKindBundle kBundles[] = {
    {trace::DecisionKind::YesNo, makeYesNoCloningTask, makeYesNoPPOActor},
    {trace::DecisionKind::Position, makePositionCloningTask, makePositionPPOActor},
    {trace::DecisionKind::Continuous, makeContinuousCloningTask, makeContinuousPPOActor},
};

}  // namespace

const LearningKindBundle &learningKindBundle(trace::DecisionKind kind) {
  for (const LearningKindBundle &bundle : kBundles)
    if (bundle.kind == kind) return bundle;
  throw std::logic_error(std::string("no learning bundle for decisions of kind ") + trace::decisionKindName(kind));
}

}  // namespace mlgo
