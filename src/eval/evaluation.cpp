#include "mlgo/eval/evaluation.h"

#include <chrono>
#include <cmath>

#include "mlgo/support/parallel_for.h"
#include "mlgo/support/portable_math.h"

namespace mlgo {

namespace {

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
  const auto start = std::chrono::steady_clock::now();
  const Problem &problem = *options.problem;
  problem.installProcessWide();
  const Problem::HookMaker &candidateHooks = options.candidateHooks;

  EvalReport report;
  report.problem = problem.name();
  report.baseline = "recorded command line, " + problem.defaultHeuristicDescription();
  report.threads = resolveThreadCount(driver.options().threads);
  report.candidateIsBaseline = !candidateHooks && options.passPipeline.empty() && options.modulePipelines.empty();
  report.candidate = candidateHooks ? options.candidateDescription : "default " + problem.name();
  if (!options.passPipeline.empty()) report.candidate += ", passes " + options.passPipeline;
  if (!options.modulePipelines.empty()) report.candidate += ", pass lists " + options.modulePipelinesDescription;
  if (options.neverLarger && !report.candidateIsBaseline) report.candidate += ", never larger";

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
    if (options.neverLarger && evaluation.ok() &&
        evaluation.candidate.sizes.textPlusData() > evaluation.baseline.sizes.textPlusData()) {
      evaluation.candidate = evaluation.baseline;
      evaluation.keptBackup = true;
      ++report.backups;
    }
    if (evaluation.ok()) {
      ++report.compared;
      accumulate(report.baselineTotals, evaluation.baseline);
      accumulate(report.candidateTotals, evaluation.candidate);
      if (baselineHooks[i]) evaluation.baselineMeasures = problem.measures(*baselineHooks[i]);
      evaluation.candidateMeasures = report.candidateIsBaseline || evaluation.keptBackup
                                         ? evaluation.baselineMeasures
                                     : hooks[i] ? problem.measures(*hooks[i])
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
