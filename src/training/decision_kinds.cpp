#include "mlgo/training/decision_kinds.h"

#include "mlgo/export/continuous_model_aot.h"
#include "mlgo/export/position_model_aot.h"
#include "mlgo/export/yes_no_model_aot.h"
#include "mlgo/training/es/es_objective.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

/// A policy of `problem` read from `directory`: yes/no policies by the
/// problem's feature names, the others by its decision spec.
YesNoPolicy loadPolicy(const fs::path &directory, const Problem &problem, const YesNoPolicy *) {
  return YesNoPolicy::load(directory, problem.name(), problem.featureNames());
}
template <class Policy>
Policy loadPolicy(const fs::path &directory, const Problem &problem, const Policy *) {
  return Policy::load(directory, problem.name(), problem.decisionSpec());
}

/// llvm-aot for a kind: its policy read, then its generator; the model
/// asked for after the policy, so a bad policy is named first.
template <class Policy, GeneratedSources (*generate)(const Policy &, const ReleaseModeModel &, const std::string &)>
GeneratedSources exportModel(const Problem &problem, const fs::path &directory,
                             ReleaseModeModel (*model)(const Problem &), const std::string &origin) {
  const Policy policy = loadPolicy(directory, problem, static_cast<const Policy *>(nullptr));
  return generate(policy, model(problem), origin);
}

/// The registry: one line per kind of decision.
const DecisionKindBundle kBundles[] = {
    {trace::DecisionKind::YesNo, true, exportModel<YesNoPolicy, generateYesNoModel>, makeYesNoESObjective},
    {trace::DecisionKind::Position, false, exportModel<PositionPolicy, generatePositionModel>,
     makePositionESObjective},
    {trace::DecisionKind::Continuous, false, exportModel<ContinuousPolicy, generateContinuousModel>,
     makeContinuousESObjective},
};

}  // namespace

const DecisionKindBundle &decisionKindBundle(trace::DecisionKind kind) { return bundleOfKind(kBundles, kind); }

}  // namespace mlgo
