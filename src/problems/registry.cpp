#include <map>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace inlining {
const Problem &inliningProblem();
}
namespace regalloc {
const Problem &regallocProblem();
const Problem &priorityProblem();
}

namespace {
/// One line per problem.
const std::map<std::string, const Problem *> &registry() {
  static const std::map<std::string, const Problem *> problems = {
      {"inlining", &inlining::inliningProblem()},
      {"regalloc", &regalloc::regallocProblem()},
      {"regalloc-priority", &regalloc::priorityProblem()},
  };
  return problems;
}
}  // namespace

const Problem &findProblem(const std::string &name) {
  auto found = registry().find(name);
  if (found == registry().end()) {
    std::string known;
    for (const auto &[key, problem] : registry()) known += (known.empty() ? "" : ", ") + key;
    throw UsageError("unknown problem \"" + name + "\" (known: " + known + ")");
  }
  return *found->second;
}

void requireYesNoDecisions(const Problem &problem, const std::string &stage) {
  const trace::DecisionSpec &spec = problem.decisionSpec();
  if (spec.kind() == trace::DecisionKind::YesNo) return;
  throw UsageError(stage + " does not handle problem \"" + problem.name() + "\" yet: its decisions have " +
                   std::to_string(spec.features.size()) + " feature tensors and " + std::to_string(spec.actions) +
                   " actions, and " + stage + " takes int64 scalar features and two actions (inlining's)");
}

const Problem &defaultProblem() { return findProblem("inlining"); }

Problem::HookMaker Problem::fixedChoiceHooks(const std::string &choice) const {
  throw UsageError("problem \"" + name() + "\" has no fixed choice \"" + choice + "\"");
}

Problem::HookMaker Problem::positionPolicyHooks(std::shared_ptr<const PositionPolicy>) const {
  throw UsageError("problem \"" + name() +
                   "\" does not decide among positions: no position policy takes its decisions");
}

Problem::HookMaker Problem::continuousPolicyHooks(std::shared_ptr<const ContinuousPolicy>) const {
  throw UsageError("problem \"" + name() + "\" does not decide real values: no continuous policy takes its decisions");
}

std::vector<std::string> problemNames() {
  std::vector<std::string> names;
  for (const auto &[key, problem] : registry()) names.push_back(key);
  return names;
}

void installEveryProblem() {
  for (const auto &[key, problem] : registry()) problem->installProcessWide();
}

}  // namespace mlgo
