#include "mlgo/eval/evaluation.h"

#include <chrono>
#include <cmath>

#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/portable_math.h"

namespace mlgo {

std::optional<InlineMode> parseInlineMode(const std::string &name) {
  if (name == "default") return InlineMode::Default;
  if (name == "hook-default") return InlineMode::HookDefault;
  if (name == "never") return InlineMode::Never;
  if (name == "always") return InlineMode::Always;
  return std::nullopt;
}

const char *inlineModeName(InlineMode mode) {
  switch (mode) {
    case InlineMode::Default: return "default";
    case InlineMode::HookDefault: return "hook-default";
    case InlineMode::Never: return "never";
    case InlineMode::Always: return "always";
  }
  return "unknown";
}

namespace {

std::shared_ptr<const inlining::Policy> candidateInliningPolicy(const EvalOptions &options) {
  if (options.policy) return options.policy;
  switch (options.inlineMode) {
    case InlineMode::Default: return nullptr;
    case InlineMode::HookDefault: return inlining::makeFixedPolicy(inlining::FixedChoice::Default);
    case InlineMode::Never: return inlining::makeFixedPolicy(inlining::FixedChoice::Never);
    case InlineMode::Always: return inlining::makeFixedPolicy(inlining::FixedChoice::Always);
  }
  return nullptr;
}

/// What makes the candidate's per-compile hooks; null: the candidate has none.
Problem::HookMaker candidateHookMaker(const EvalOptions &options) {
  if (options.candidateHooks) return options.candidateHooks;
  std::shared_ptr<const inlining::Policy> policy = candidateInliningPolicy(options);
  if (!policy) return nullptr;
  inlining::installInliningAdvisor();
  return [policy] { return std::make_shared<inlining::InliningHook>(policy); };
}

void accumulate(std::map<std::string, double> &totals, const std::map<std::string, double> &measures) {
  for (const auto &[name, value] : measures) totals[name] += value;
}

void accumulate(SizeTotals &totals, const CompileResult &result) {
  totals.sizes.text += result.sizes.text;
  totals.sizes.data += result.sizes.data;
  totals.sizes.rodata += result.sizes.rodata;
  totals.sizes.bss += result.sizes.bss;
  totals.irInstructions += result.irInstructions;
}

}  // namespace

EvalReport evaluateCorpus(const Corpus &corpus, const CompilerDriver &driver, const EvalOptions &options,
                          const CompilerDriver::Progress &progress) {
  inlining::installInliningAdvisor();
  const auto start = std::chrono::steady_clock::now();
  const Problem &problem = findProblem(options.problem);
  const Problem::HookMaker candidateHooks = candidateHookMaker(options);

  EvalReport report;
  report.problem = problem.name();
  report.threads = resolveThreadCount(driver.options().threads);
  report.candidateIsBaseline = !candidateHooks && options.passPipeline.empty() && options.modulePipelines.empty();
  if (options.policy || options.candidateHooks)
    report.candidate = "policy " + options.policyDescription;
  else if (problem.name() == "inlining")
    report.candidate = std::string("inline ") + inlineModeName(options.inlineMode);
  else
    report.candidate = "default " + problem.name();
  if (!options.passPipeline.empty()) report.candidate += ", passes " + options.passPipeline;
  if (!options.modulePipelines.empty()) report.candidate += ", pass lists " + options.modulePipelinesDescription;

  // Baseline and candidate requests go on one queue so both keep every
  // thread busy; hooks are per compile (they count decisions and measure).
  const size_t count = corpus.modules.size();
  std::vector<CompileRequest> requests;
  std::vector<std::shared_ptr<PipelineHook>> baselineHooks(count), hooks(count);
  requests.reserve(report.candidateIsBaseline ? count : 2 * count);
  for (size_t i = 0; i < count; ++i) {
    CompileRequest request{&corpus.modules[i], "", {}};
    if ((baselineHooks[i] = problem.measuringHook())) request.hooks.push_back(baselineHooks[i]);
    requests.push_back(std::move(request));
  }
  if (!report.candidateIsBaseline) {
    for (size_t i = 0; i < count; ++i) {
      auto own = options.modulePipelines.find(corpus.modules[i].name);
      CompileRequest request{&corpus.modules[i],
                             own != options.modulePipelines.end() ? own->second : options.passPipeline, {}};
      hooks[i] = candidateHooks ? candidateHooks() : problem.measuringHook();
      if (hooks[i]) request.hooks.push_back(hooks[i]);
      requests.push_back(std::move(request));
    }
  }
  std::vector<CompileResult> results = driver.compileAll(requests, progress);

  double logRatioSum = 0;
  for (size_t i = 0; i < count; ++i) {
    ModuleEvaluation evaluation;
    evaluation.name = corpus.modules[i].name;
    evaluation.baseline = results[i];
    evaluation.candidate = report.candidateIsBaseline ? results[i] : results[count + i];
    if (candidateHooks) evaluation.decisions = evaluation.candidate.decisions;  // also for memoized compiles
    if (evaluation.ok()) {
      ++report.compared;
      accumulate(report.baselineTotals, evaluation.baseline);
      accumulate(report.candidateTotals, evaluation.candidate);
      if (baselineHooks[i]) evaluation.baselineMeasures = problem.measures(*baselineHooks[i]);
      evaluation.candidateMeasures = report.candidateIsBaseline ? evaluation.baselineMeasures
                                     : hooks[i]                 ? problem.measures(*hooks[i])
                                                                : std::map<std::string, double>{};
      accumulate(report.baselineMeasureTotals, evaluation.baselineMeasures);
      accumulate(report.candidateMeasureTotals, evaluation.candidateMeasures);
      // A module with no code or data (size 0) counts as unchanged.
      const double base = static_cast<double>(evaluation.baseline.sizes.textPlusData());
      const double cand = static_cast<double>(evaluation.candidate.sizes.textPlusData());
      if (base > 0 && cand > 0) logRatioSum += portable::log(cand / base);
    }
    report.modules.push_back(std::move(evaluation));
  }
  if (report.compared > 0) report.geomeanTextPlusDataChange = portable::exp(logRatioSum / report.compared) - 1;
  report.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace mlgo
