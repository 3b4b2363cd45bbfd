#include "mlgo/tracing/explore_baseline.h"

#include <cmath>
#include <optional>
#include <vector>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/policy/trajectory.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

class DefaultBaseline final : public ExploreBaseline {
 public:
  bool ranked() const override { return false; }
  bool takesDefault() const override { return true; }
  ExploreChoice choose(const int64_t *, int64_t defaultAction) const override {
    return {defaultAction, defaultAction == 1 ? 0 : 1, 0.0};
  }
  std::string fingerprint() const override { return ""; }
};

/// Yes/no: the greedy action (YesNoPolicy::decide's rule), or the given one;
/// sure = |P(action 1) - 0.5|, signed by agreement when the action is given.
ExploreChoice rank(const YesNoPolicy &policy, const int64_t *features, std::optional<int64_t> given) {
  float logits[2];
  policy.logits(features, logits);
  const double p1 = probabilityOfAction1(logits);
  if (given) return {*given, *given == 1 ? 0 : 1, *given == 1 ? p1 - 0.5 : 0.5 - p1};
  const int64_t action = logits[1] > logits[0];
  return {action, 1 - action, std::abs(p1 - 0.5)};
}

/// Positions: the best-scoring allowed position (PositionPolicy::decide's
/// rule), or the given one; the alternative is the best other allowed one,
/// sure = the score gap between the two.
ExploreChoice rank(const PositionPolicy &policy, const int64_t *features, std::optional<int64_t> given) {
  thread_local std::vector<float> scores;
  scores.resize(policy.layout().positions());
  policy.scores(features, scores.data());  // -infinity where the mask forbids
  const int64_t action = given ? *given : greedyAction(scores.data(), scores.size());
  if (action < 0 || size_t(action) >= scores.size()) return {action, -1, 0.0};
  int64_t alternative = -1;
  for (size_t p = 0; p < scores.size(); ++p)
    if (int64_t(p) != action && std::isfinite(scores[p]) && (alternative < 0 || scores[p] > scores[alternative]))
      alternative = int64_t(p);
  if (alternative < 0) return {action, -1, 0.0};
  return {action, alternative, double(scores[action]) - double(scores[alternative])};
}

/// A policy's decisions (or, around the default, the default's ranked by
/// it): what the two kinds of policy share; `rank` is each kind's own.
template <class Policy>
class PolicyBaseline final : public ExploreBaseline {
 public:
  PolicyBaseline(std::shared_ptr<const Policy> policy, bool aroundDefault)
      : policy_(std::move(policy)), aroundDefault_(aroundDefault) {}
  bool ranked() const override { return true; }
  bool takesDefault() const override { return aroundDefault_; }
  ExploreChoice choose(const int64_t *features, int64_t defaultAction) const override {
    return rank(*policy_, features, aroundDefault_ ? std::optional<int64_t>(defaultAction) : std::nullopt);
  }
  std::string fingerprint() const override { return policy_->serialize(); }

 private:
  std::shared_ptr<const Policy> policy_;
  bool aroundDefault_;
};

}  // namespace

std::unique_ptr<ExploreBaseline> defaultExploreBaseline(const Problem &problem) {
  switch (problem.decisionSpec().kind()) {
    case trace::DecisionKind::YesNo: return std::make_unique<DefaultBaseline>();
    case trace::DecisionKind::Position:
      throw UsageError("exploring " + problem.name() + "'s decisions among " +
                       std::to_string(problem.decisionSpec().actions) +
                       " positions needs --policy: the default heuristic names only its own choice, a policy ranks "
                       "the others (with --around-default, explore keeps the default's decisions as the baseline)");
    case trace::DecisionKind::Continuous: break;
  }
  throw UsageError("explore flips decisions: " + problem.name() + "'s continuous decisions have nothing to flip");
}

std::unique_ptr<ExploreBaseline> yesNoPolicyBaseline(std::shared_ptr<const YesNoPolicy> policy, bool aroundDefault) {
  return std::make_unique<PolicyBaseline<YesNoPolicy>>(std::move(policy), aroundDefault);
}

std::unique_ptr<ExploreBaseline> positionPolicyBaseline(std::shared_ptr<const PositionPolicy> policy,
                                                        bool aroundDefault) {
  return std::make_unique<PolicyBaseline<PositionPolicy>>(std::move(policy), aroundDefault);
}

std::unique_ptr<ExploreBaseline> loadExploreBaseline(const Problem &problem, const std::filesystem::path &directory,
                                                     bool aroundDefault) {
  const trace::DecisionSpec &spec = problem.decisionSpec();
  if (PositionLayout::whyNot(spec).empty())
    return positionPolicyBaseline(
        std::make_shared<const PositionPolicy>(PositionPolicy::load(directory, problem.name(), spec)), aroundDefault);
  requireYesNoDecisions(problem, "explore");
  return yesNoPolicyBaseline(
      std::make_shared<const YesNoPolicy>(YesNoPolicy::load(directory, problem.name(), problem.featureNames())),
      aroundDefault);
}

}  // namespace mlgo
