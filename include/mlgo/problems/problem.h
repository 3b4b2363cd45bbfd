#pragma once
// An optimization problem (inlining, register allocation) is one folder
// under problems/ implementing this interface and one line in
// problems/registry.cpp. Pipeline stages (trace, vocab, training) only ever
// talk to a Problem (docs/adding-a-problem.md).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/trace/trace_format.h"

namespace mlgo {

class DecisionSteer;

class Problem {
 public:
  virtual ~Problem() = default;
  /// Short stable name, used in trace files and on the command line.
  virtual std::string name() const = 0;
  /// One decision: its feature tensors in order (LLVM's names, types and
  /// shapes where LLVM has them) and its number of actions.
  virtual const trace::DecisionSpec &decisionSpec() const = 0;
  std::vector<std::string> featureNames() const { return decisionSpec().names(); }
  /// Per-module measurements a default trace's baselines.json records beside
  /// the text size, read from the hook defaultTracingHook gave for the
  /// module's compile (register allocation: LLVM's regalloc score).
  virtual std::map<std::string, double> baselineMeasures(const PipelineHook &tracingHook) const { return {}; }
  /// A hook for one compile that lets the compiler's default heuristic
  /// decide and records every decision (features, default, action) into
  /// `trace`, which must outlive the compile.
  virtual std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const = 0;
  /// A hook for one compile whose every decision is taken by `steer` (which
  /// records what it needs): sampling for reinforcement learning, flipping
  /// for exploration. The steer must outlive the compile.
  virtual std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const = 0;
};

/// Throws UsageError unless the problem's decisions are int64 scalars with two
/// actions (inlining's), which `stage` needs (learners, vocabularies and the
/// interactive server do not handle feature tensors yet).
void requireScalarBinaryDecisions(const Problem &problem, const std::string &stage);
/// findProblem(name), checked with requireScalarBinaryDecisions.
const Problem &scalarBinaryProblem(const std::string &name, const std::string &stage);

/// The problem registered under `name`; throws UsageError naming the known ones.
const Problem &findProblem(const std::string &name);
std::vector<std::string> problemNames();

}  // namespace mlgo
