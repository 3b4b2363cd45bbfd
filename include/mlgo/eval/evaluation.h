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
#include "mlgo/problems/problem.h"

namespace mlgo {

struct EvalOptions {
  /// The problem whose decisions the candidate takes; both compiles carry
  /// its measuring hooks, so its measures are compared too.
  const Problem *problem = &defaultProblem();
  /// Per-compile hooks taking the candidate's decisions (a trained policy,
  /// Problem::policyHooks, or a fixed choice, Problem::fixedChoiceHooks);
  /// null: the default heuristic decides.
  Problem::HookMaker candidateHooks;
  /// What the hooks are, for the report ("policy DIR", "inline never").
  std::string candidateDescription;
  /// Candidate optimization pipeline instead of the recorded level.
  std::string passPipeline;
  /// Per-module pipelines (module name -> opt pipeline, from `mlgo autotune`'s
  /// best.json); they take precedence over passPipeline for their modules.
  std::map<std::string, std::string> modulePipelines;
  std::string modulePipelinesDescription;
  /// The plain compile backs the candidate up (--never-larger): a module
  /// whose candidate is larger (.text+data) counts as its plain compile, as
  /// `mlgo cc --never-larger` keeps the smaller object.
  bool neverLarger = false;
};

struct ModuleEvaluation {
  std::string name;
  CompileResult baseline;
  CompileResult candidate;
  uint64_t decisions = 0;  ///< decisions the hook saw in the candidate
  /// The problem's measures of each compile (empty: none, or the compile failed).
  std::map<std::string, double> baselineMeasures, candidateMeasures;
  bool keptBackup = false;  ///< --never-larger: the candidate was larger, the plain compile counts
  bool ok() const { return baseline.ok() && candidate.ok(); }
};

struct SizeTotals {
  SectionSizes sizes;
  uint64_t irInstructions = 0;
};

struct EvalReport {
  std::string problem;
  std::string baseline;   ///< human description of the baseline
  std::string candidate;  ///< human description of the choice evaluated
  bool candidateIsBaseline = false;  ///< compiled once, reported twice
  unsigned threads = 0;
  double wallSeconds = 0;
  std::vector<ModuleEvaluation> modules;
  // Over modules where both compiles succeeded:
  size_t compared = 0;
  size_t backups = 0;  ///< modules where --never-larger kept the plain compile
  SizeTotals baselineTotals, candidateTotals;
  std::map<std::string, double> baselineMeasureTotals, candidateMeasureTotals;
  /// Geometric mean over modules of candidate/baseline (text+data), minus 1.
  double geomeanTextPlusDataChange = 0;
  size_t failed() const { return modules.size() - compared; }
};

EvalReport evaluateCorpus(const Corpus &corpus, const CompilerDriver &driver, const EvalOptions &options,
                          const CompilerDriver::Progress &progress = nullptr);

}  // namespace mlgo
