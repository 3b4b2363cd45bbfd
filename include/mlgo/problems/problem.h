#pragma once
// An optimization problem (inlining today; register allocation and others
// later) is one folder under problems/ implementing this interface and one
// line in problems/registry.cpp. Pipeline stages (trace, vocab, training)
// only ever talk to a Problem.
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
  /// The features of one decision, in order (LLVM's names where LLVM has them).
  virtual const std::vector<std::string> &featureNames() const = 0;
  /// A hook for one compile that lets the compiler's default heuristic
  /// decide and records every decision (features, default, action) into
  /// `trace`, which must outlive the compile.
  virtual std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const = 0;
  /// A hook for one compile whose every decision is taken by `steer` (which
  /// records what it needs): sampling for reinforcement learning, flipping
  /// for exploration. The steer must outlive the compile.
  virtual std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &steer) const = 0;
};

/// The problem registered under `name`; throws UsageError naming the known ones.
const Problem &findProblem(const std::string &name);
std::vector<std::string> problemNames();

}  // namespace mlgo
