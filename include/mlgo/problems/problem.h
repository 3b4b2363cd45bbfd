#pragma once
// An optimization problem (inlining, register allocation) is one folder
// under problems/ implementing this interface and one line in
// problems/registry.cpp. Pipeline stages (trace, vocab, training) only ever
// talk to a Problem (docs/adding-a-problem.md).
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/trace/trace_format.h"

namespace mlgo {

/// Per reward segment values of a problem's measures: measure name ->
/// segment key (register allocation: a function's name) -> value.
using SegmentMeasures = std::map<std::string, std::map<std::string, double>>;

class DecisionSteer;
class PositionPolicy;
class ContinuousPolicy;
namespace serve {
class ChannelPolicy;
}

/// The class a release-mode LLVM compiles in for a problem's advisor
/// (ReleaseModeModelRunner<llvm::CLASS>): what `mlgo export --format
/// llvm-aot` generates.
struct ReleaseModeModel {
  std::string className;     ///< in namespace llvm, declared in CLASS.h
  std::string decisionName;  ///< the output, looked up as "fetch_<decisionName>"
  /// Continuous decisions: the largest answer the advisor can take (LLVM
  /// casts the float to its own type); the model clamps to it. 0: no bound.
  double largestValue = 0;
};

class Problem {
 public:
  virtual ~Problem() = default;
  /// Short stable name, used in trace files and on the command line.
  virtual std::string name() const = 0;
  /// One decision: its feature tensors in order (LLVM's names, types and
  /// shapes where LLVM has them) and its number of actions.
  virtual const trace::DecisionSpec &decisionSpec() const = 0;
  /// Sets up what the problem needs once per process before the first
  /// compile, where LLVM keeps it process-global (inlining: the plugin
  /// advisor in every analysis manager; register allocation: the eviction
  /// seam in the pass registry). Idempotent; compiles that do not use the
  /// problem keep LLVM's own behaviour.
  virtual void installProcessWide() const {}
  /// The -mllvm flags installProcessWide() sets, as a stock clang spells
  /// them (inlining: the ML advisor's size threshold).
  virtual std::vector<std::string> processWideBackendFlags() const { return {}; }
  std::vector<std::string> featureNames() const { return decisionSpec().names(); }
  /// Per-module measurements beside the sizes (register allocation: LLVM's
  /// regalloc score), read from the hook of the module's compile (from
  /// defaultTracingHook, measuringHook or policyHooks): a default trace's
  /// baselines.json records them, `mlgo eval` compares them.
  virtual std::map<std::string, double> measures(const PipelineHook &hook) const { return {}; }
  /// The names measures() returns, without compiling anything.
  virtual std::vector<std::string> measureNames() const { return {}; }
  /// What a reward segment is when the measures are also computed per part of
  /// a compile ("function" for register allocation: LLVM's score is per
  /// function, and the steering hook tells its DecisionSteer where each
  /// function's decisions begin); empty when a compile is one segment.
  virtual std::string segmentName() const { return ""; }
  /// The measures per segment, from the same hooks as measures(); empty when
  /// segmentName() is.
  virtual SegmentMeasures segmentMeasures(const PipelineHook &hook) const { return {}; }
  /// A hook for a compile left to the default heuristic that only measures
  /// what measures() reads; null when the problem has nothing to measure.
  virtual std::shared_ptr<PipelineHook> measuringHook() const { return nullptr; }
  /// A hook for one compile that lets the compiler's default heuristic
  /// decide and records every decision (features, default, action) into
  /// `trace`, which must outlive the compile.
  virtual std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const = 0;
  /// A hook for one compile whose every decision is taken by `steer` (which
  /// records what it needs): sampling for reinforcement learning, flipping
  /// for exploration. The steer must outlive the compile.
  virtual std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const = 0;

  using HookMaker = std::function<std::shared_ptr<PipelineHook>()>;
  /// Loads the trained policy in `directory` (or a training output holding
  /// it in policy/) and returns a maker of per-compile hooks whose every
  /// decision the policy takes, greedily. Throws InputError naming the file
  /// for a policy of another problem or another decision layout.
  virtual HookMaker policyHooks(const std::filesystem::path &directory) const = 0;
  /// Per-compile hooks whose every decision `policy` takes, for problems
  /// whose decisions are among positions (mlgo/policy/position_policy.h).
  /// Throws UsageError for the others.
  virtual HookMaker positionPolicyHooks(std::shared_ptr<const PositionPolicy> policy) const;
  /// The same for problems whose decisions are real values
  /// (mlgo/policy/continuous_policy.h).
  virtual HookMaker continuousPolicyHooks(std::shared_ptr<const ContinuousPolicy> policy) const;
  /// The trained policy in `directory`, ready to answer a stock compiler
  /// over LLVM's interactive channel (`mlgo serve`). Throws InputError as
  /// policyHooks does.
  virtual std::unique_ptr<serve::ChannelPolicy> channelPolicy(const std::filesystem::path &directory) const = 0;
  /// LLVM's compiled-in model class for this problem; none when LLVM has no
  /// release-mode advisor for it.
  virtual std::optional<ReleaseModeModel> releaseModeModel() const { return std::nullopt; }

  /// What the compiler decides when nothing steers it, for reports
  /// ("recorded command line, " + this).
  virtual std::string defaultHeuristicDescription() const { return "LLVM's default " + name() + " heuristic"; }
  /// Choices that need no policy, which `mlgo eval` can compare with the
  /// default (inlining: never, always, and the default heuristic through
  /// mlgo's hook); none by default.
  virtual std::vector<std::string> fixedChoices() const { return {}; }
  /// Per-compile hooks taking every decision as fixedChoices()' `choice`
  /// says. Throws UsageError for a choice the problem does not have.
  virtual HookMaker fixedChoiceHooks(const std::string &choice) const;
  /// The config file this problem trains `learner` ("bc", "ppo", "es") with:
  /// a path under the data directory's configs/ holding only what differs
  /// from the learner's built-in defaults. Empty: the defaults as they are.
  virtual std::string configFile(const std::string &learner) const { return ""; }
};

/// Throws UsageError unless the problem's decisions are yes/no (int64 scalars
/// and two actions, inlining's), which `stage` needs (explore; train-ppo's yes/no
/// actor).
void requireYesNoDecisions(const Problem &problem, const std::string &stage);

/// The problem registered under `name`; throws UsageError naming the known ones.
const Problem &findProblem(const std::string &name);
/// The problem a command works on when neither a flag nor a policy names one.
const Problem &defaultProblem();
std::vector<std::string> problemNames();
/// installProcessWide() of every registered problem: a process's start-up.
void installEveryProblem();

}  // namespace mlgo
