#pragma once
// What `mlgo explore` searches around, decision by decision: the baseline's
// action, the action a flip takes instead, and how sure the baseline is of
// its action (explore flips the least sure decisions first).
//   - the default heuristic alone (two-action problems only): a flip takes
//     the other action; nothing ranks the decisions, so explore spreads its
//     flips evenly over the compile;
//   - a policy (a YesNoPolicy for two actions, a PositionPolicy for
//     positions): its greedy action; a flip takes its runner-up, and the
//     margin is how far ahead the greedy action is;
//   - the default heuristic ranked by a policy (`--around-default`): the
//     default's action; a flip takes the policy's best other action, and the
//     margin is how much the policy prefers the default's action to that one
//     (below 0 where the policy disagrees with the default: flipped first).
//     This is how decisions among positions are explored around the default,
//     which names only its own choice.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace mlgo {

class Problem;
class YesNoPolicy;
class PositionPolicy;

struct ExploreChoice {
  int64_t action = 0;
  int64_t alternative = -1;  ///< what a flip takes; -1 when nothing else may be chosen
  double margin = 0;         ///< how sure the baseline is of `action` (ranked baselines only)
};

class ExploreBaseline {
 public:
  virtual ~ExploreBaseline() = default;
  /// Whether margins rank the decisions (false: the default heuristic alone).
  virtual bool ranked() const = 0;
  /// Whether the baseline takes the default heuristic's actions.
  virtual bool takesDefault() const = 0;
  virtual ExploreChoice choose(const int64_t *features, int64_t defaultAction) const = 0;
  /// The policy's bytes ("" for the default alone): an exploration resumes
  /// only with the same ones.
  virtual std::string fingerprint() const = 0;
};

/// The default heuristic alone. Throws UsageError for a problem whose
/// decisions are not between two actions (the default names only its choice).
std::unique_ptr<ExploreBaseline> defaultExploreBaseline(const Problem &problem);
std::unique_ptr<ExploreBaseline> yesNoPolicyBaseline(std::shared_ptr<const YesNoPolicy> policy, bool aroundDefault);
std::unique_ptr<ExploreBaseline> positionPolicyBaseline(std::shared_ptr<const PositionPolicy> policy,
                                                        bool aroundDefault);
/// The policy in `directory`, of the kind the problem's decisions take.
/// Throws InputError as the policies' load() do.
std::unique_ptr<ExploreBaseline> loadExploreBaseline(const Problem &problem, const std::filesystem::path &directory,
                                                     bool aroundDefault);

}  // namespace mlgo
