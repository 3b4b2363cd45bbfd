#pragma once
// `mlgo eval`: compiles every module of a corpus twice, with the recorded
// pipeline and LLVM's default heuristics (the baseline) and with the choice
// under test, and compares sizes and the problem's own measures (register
// allocation: LLVM's regalloc score).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/problems/problem.h"

namespace mlgo {

/// How the candidate compile decides inlining.
enum class InlineMode {
  Default,      ///< LLVM's heuristic, untouched (no hook)
  HookDefault,  ///< the heuristic's decisions routed through mlgo's hook
  Never,
  Always,
};
std::optional<InlineMode> parseInlineMode(const std::string &name);
const char *inlineModeName(InlineMode mode);

struct EvalOptions {
  /// The problem whose decisions the candidate takes; both compiles carry
  /// its measuring hooks, so its measures are compared too.
  std::string problem = "inlining";
  /// Per-compile hooks taking the candidate's decisions (a trained policy,
  /// Problem::policyHooks); they take precedence over policy and inlineMode.
  Problem::HookMaker candidateHooks;
  InlineMode inlineMode = InlineMode::Default;
  /// A policy deciding inlining (overrides inlineMode when set).
  std::shared_ptr<const inlining::Policy> policy;
  std::string policyDescription;
  /// Candidate optimization pipeline instead of the recorded level.
  std::string passPipeline;
  /// Per-module pipelines (module name -> opt pipeline, from `mlgo autotune`'s
  /// best.json); they take precedence over passPipeline for their modules.
  std::map<std::string, std::string> modulePipelines;
  std::string modulePipelinesDescription;
};

struct ModuleEvaluation {
  std::string name;
  CompileResult baseline;
  CompileResult candidate;
  uint64_t decisions = 0;  ///< decisions the hook saw in the candidate
  /// The problem's measures of each compile (empty: none, or the compile failed).
  std::map<std::string, double> baselineMeasures, candidateMeasures;
  bool ok() const { return baseline.ok() && candidate.ok(); }
};

struct SizeTotals {
  SectionSizes sizes;
  uint64_t irInstructions = 0;
};

struct EvalReport {
  std::string problem;
  std::string candidate;  ///< human description of the choice evaluated
  bool candidateIsBaseline = false;  ///< compiled once, reported twice
  unsigned threads = 0;
  double wallSeconds = 0;
  std::vector<ModuleEvaluation> modules;
  // Over modules where both compiles succeeded:
  size_t compared = 0;
  SizeTotals baselineTotals, candidateTotals;
  std::map<std::string, double> baselineMeasureTotals, candidateMeasureTotals;
  /// Geometric mean over modules of candidate/baseline (text+data), minus 1.
  double geomeanTextPlusDataChange = 0;
  size_t failed() const { return modules.size() - compared; }
};

EvalReport evaluateCorpus(const Corpus &corpus, const CompilerDriver &driver, const EvalOptions &options,
                          const CompilerDriver::Progress &progress = nullptr);

}  // namespace mlgo
