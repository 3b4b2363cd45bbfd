#include "mlgo/training/decision_kinds.h"

#include <stdexcept>

#include "mlgo/export/continuous_model_aot.h"
#include "mlgo/export/position_model_aot.h"
#include "mlgo/export/yes_no_model_aot.h"
#include "mlgo/training/es/es_objective.h"

namespace mlgo {

namespace {

/// The registry: one line per kind of decision.
const DecisionKindBundle kBundles[] = {
    {trace::DecisionKind::YesNo, true, exportYesNoModel, makeYesNoESObjective},
    {trace::DecisionKind::Position, false, exportPositionModel, makePositionESObjective},
    {trace::DecisionKind::Continuous, false, exportContinuousModel, makeContinuousESObjective},
};

}  // namespace

const DecisionKindBundle &decisionKindBundle(trace::DecisionKind kind) {
  for (const DecisionKindBundle &bundle : kBundles)
    if (bundle.kind == kind) return bundle;
  throw std::logic_error(std::string("no bundle for decisions of kind ") + trace::decisionKindName(kind));
}

}  // namespace mlgo
